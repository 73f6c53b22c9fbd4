//! "Did you mean": the catalog tool a mistyped name most likely meant.
//!
//! Pure and bounded: used wherever a person or a model names a tool (the `ghostlight call`
//! command, the MCP edge's unknown-tool error, a flow step's `tool`).

use super::ToolName;

/// Names longer than this are never matched (nothing in the catalog is close to them).
const MAX_CHARS: usize = 64;

/// The prefix most tool names share; a name is compared without it.
const PREFIX: &str = "browser_";

/// The shortest part of a name that may stand for the one tool it begins.
const MIN_PREFIX_CHARS: usize = 3;

impl ToolName {
    /// The catalog tool `name` most likely meant, when exactly one is close: the same name in
    /// another case or with `-` for `_` (`Browser-Read`), a name carrying a namespace before
    /// the tool (`mcp__ghostlight__browser_click`), one within a few edits
    /// (`browser_clik`, `navigate`, `fillform`), or the only tool whose name begins with it
    /// (`type`, `tab`). `None` for an exact catalog name, and when nothing or more than one
    /// tool is equally close.
    ///
    /// ```
    /// use ghostlight_core::ToolName;
    /// assert_eq!(ToolName::suggest("browser_clik"), Some(ToolName::Click));
    /// assert_eq!(ToolName::suggest("navigate"), Some(ToolName::Navigate));
    /// assert_eq!(ToolName::suggest("browser_teleport"), None);
    /// ```
    pub fn suggest(name: &str) -> Option<ToolName> {
        if ToolName::parse(name).is_some() || name.chars().count() > MAX_CHARS {
            return None;
        }
        let normalized: String = name
            .trim()
            .chars()
            .map(|c| if matches!(c, '-' | ' ' | '.' | ':' | '/') { '_' } else { c.to_ascii_lowercase() })
            .collect();
        if let Some(tool) = ToolName::parse(&normalized) {
            return Some(tool);
        }
        // A namespace before the tool's name: `mcp__ghostlight__browser_click`.
        if let Some(tool) = ToolName::ALL
            .iter()
            .filter(|tool| normalized.ends_with(&format!("_{}", tool.as_str())))
            .max_by_key(|tool| tool.as_str().len())
        {
            return Some(*tool);
        }
        let stem = normalized.strip_prefix(PREFIX).unwrap_or(&normalized);
        if stem.is_empty() {
            return None;
        }
        let stem_chars = stem.chars().count();
        let stems = || ToolName::ALL.iter().map(|tool| (*tool, tool.as_str().trim_start_matches(PREFIX)));
        // Within a few edits: one per three characters of the shorter name, at least one.
        let distances: Vec<(ToolName, usize, usize)> = stems()
            .map(|(tool, tool_stem)| {
                let allowed = (stem_chars.min(tool_stem.chars().count()) / 3).max(1);
                (tool, strsim::osa_distance(stem, tool_stem), allowed)
            })
            .collect();
        if let Some(best) = distances.iter().filter(|(_, d, allowed)| d <= allowed).map(|(_, d, _)| *d).min()
        {
            let mut closest = distances.iter().filter(|(_, d, allowed)| *d == best && d <= allowed);
            return match (closest.next(), closest.next()) {
                (Some((tool, _, _)), None) => Some(*tool),
                _ => None,
            };
        }
        // The beginning of exactly one tool's name.
        if stem_chars >= MIN_PREFIX_CHARS {
            let mut starting = stems().filter(|(_, tool_stem)| tool_stem.starts_with(stem));
            if let (Some((tool, _)), None) = (starting.next(), starting.next()) {
                return Some(tool);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn close_names_suggest_the_tool() {
        for (given, meant) in [
            ("browser_clik", ToolName::Click),
            ("browser_naviagte", ToolName::Navigate),
            ("Browser_Read", ToolName::Read),
            ("browser-fill-form", ToolName::FillForm),
            ("browser_fillform", ToolName::FillForm),
            ("browser_screenshoot", ToolName::Screenshot),
            ("navigate", ToolName::Navigate),
            ("click", ToolName::Click),
            ("wiat", ToolName::Wait),
            ("tab", ToolName::Tabs),
            ("type", ToolName::TypeText),
            ("browser_exec", ToolName::Execute),
            ("policy", ToolName::PolicyExplain),
            ("policy-explain", ToolName::PolicyExplain),
            ("mcp__ghostlight__browser_click", ToolName::Click),
            ("ghostlight.browser_read", ToolName::Read),
            (" browser_read ", ToolName::Read),
        ] {
            assert_eq!(ToolName::suggest(given), Some(meant), "{given}");
        }
    }

    #[test]
    fn far_ambiguous_and_exact_names_suggest_nothing() {
        for given in [
            "browser_teleport",
            "browser_open",
            "teleport",
            "",
            "browser_",
            "x",
            "scr",
            "browser_read",
            "policy_explain",
            &"browser_click".repeat(10),
        ] {
            assert_eq!(ToolName::suggest(given), None, "{given}");
        }
    }

    #[test]
    fn every_tool_one_edit_away_is_found() {
        for tool in ToolName::ALL {
            let name = tool.as_str();
            let dropped: String = name[..name.len() - 1].to_owned();
            assert_eq!(ToolName::suggest(&dropped), Some(tool), "{dropped}");
        }
    }
}
