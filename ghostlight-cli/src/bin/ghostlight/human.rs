//! What a person sees of an envelope: the text read (bounded, with a note when cut), rows
//! found or inspected as a table, and the remaining facts as `key: value` lines.
//!
//! The envelope JSON (`--json`) stays the complete record; this is its reading for a person,
//! bounded so that one step of a flow cannot flood the terminal.

use std::io::{self, Write};

use ghostlight_core::Envelope;
use serde_json::Value;

/// How much of a result is shown.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Detail {
    /// Characters of text read.
    pub(crate) text_chars: usize,
    /// Lines of text read.
    pub(crate) text_lines: usize,
    /// Rows of a table.
    pub(crate) rows: usize,
}

/// `ghostlight call`: one result, shown generously.
pub(crate) const CALL: Detail = Detail { text_chars: 4000, text_lines: 100, rows: 200 };

/// One step of `ghostlight flow`: enough to see what the step found (600 characters, as README
/// says; the line bound only keeps a page of one-word lines short).
pub(crate) const STEP: Detail = Detail { text_chars: 600, text_lines: 60, rows: 10 };

/// Columns of object rows shown first: the handle a row is about.
const LEADING_COLUMNS: [&str; 4] = ["id", "tab", "target", "recording"];

/// The widest a table cell is shown (characters).
const CELL_CHARS: usize = 60;

/// Facts never shown as `key: value`: the table's own `columns` and `count`, and
/// bookkeeping a person does not act on.
const QUIET_FACTS: [&str; 3] = ["columns", "count", "document_generation"];

/// The facts of a text read, shown as a block with a note instead of `key: value`.
const TEXT_FACTS: [&str; 3] = ["text", "truncated", "characters"];

/// Whether `value` is shown as a table: a non-empty list of rows (lists or objects).
fn is_table(value: &Value) -> bool {
    value
        .as_array()
        .is_some_and(|rows| !rows.is_empty() && rows.iter().all(|row| row.is_array() || row.is_object()))
}

/// Whether the envelope's `text` fact is page text to show as a block.
fn has_text(envelope: &Envelope) -> bool {
    envelope.facts.get("text").is_some_and(Value::is_string)
}

/// The facts not shown by [`body`], one per line (strings as they are, string lists one item
/// a line, anything else compact JSON).
pub(crate) fn facts(out: &mut impl Write, envelope: &Envelope, indent: &str) -> io::Result<()> {
    let text = has_text(envelope);
    for (key, value) in &envelope.facts {
        if QUIET_FACTS.contains(&key.as_str())
            || (text && TEXT_FACTS.contains(&key.as_str()))
            || is_table(value)
        {
            continue;
        }
        match value {
            Value::String(text) => writeln!(out, "{indent}{key}: {}", one_line(text))?,
            Value::Array(items) if !items.is_empty() && items.iter().all(Value::is_string) => {
                writeln!(out, "{indent}{key}:")?;
                for item in items.iter().filter_map(Value::as_str) {
                    writeln!(out, "{indent}  - {}", one_line(item))?;
                }
            }
            other => writeln!(out, "{indent}{key}: {other}")?,
        }
    }
    Ok(())
}

/// What the result holds for a person to read: the text read, then each table.
pub(crate) fn body(
    out: &mut impl Write,
    envelope: &Envelope,
    indent: &str,
    detail: Detail,
) -> io::Result<()> {
    if has_text(envelope) {
        text(out, envelope, indent, detail)?;
    }
    for (key, value) in &envelope.facts {
        if let Some(forms) = form_tables(key, value) {
            // A forms snapshot: one table of fields per form (`browser_inspect` scope forms).
            for (index, form) in forms.iter().enumerate() {
                let name = match form.get("name").and_then(Value::as_str) {
                    Some(name) => format!("form {} \"{}\"", index + 1, one_line(name)),
                    None => format!("form {}", index + 1),
                };
                let fields = form.get("fields").cloned().unwrap_or_default();
                table(out, &name, &fields, None, indent, detail)?;
            }
        } else if is_table(value) {
            table(out, key, value, envelope.facts.get("columns"), indent, detail)?;
        }
    }
    Ok(())
}

/// The forms of a forms snapshot's `forms` fact (each an object with a `fields` array).
fn form_tables<'a>(key: &str, value: &'a Value) -> Option<&'a Vec<Value>> {
    let forms = value.as_array().filter(|_| key == "forms")?;
    forms.iter().all(|form| form.get("fields").is_some_and(Value::is_array)).then_some(forms)
}

/// The text read as an indented block, cut at `detail`'s bounds, with a note when it was cut
/// here or when the read itself stopped at `max_chars`.
fn text(out: &mut impl Write, envelope: &Envelope, indent: &str, detail: Detail) -> io::Result<()> {
    let text = envelope.facts.get("text").and_then(Value::as_str).unwrap_or_default();
    let total = text.chars().count();
    // Characters shown, counting the line breaks between shown lines.
    let mut shown = 0;
    let mut cut = false;
    for (index, line) in text.lines().enumerate() {
        let room = detail.text_chars.saturating_sub(shown + usize::from(index > 0));
        if index == detail.text_lines || room == 0 {
            cut = true;
            break;
        }
        let part: String = line.chars().take(room).collect();
        let length = part.chars().count();
        cut = length < line.chars().count();
        shown += length + usize::from(index > 0);
        writeln!(out, "{indent}| {}", part.trim_end())?;
        if cut {
            break;
        }
    }
    if cut {
        writeln!(
            out,
            "{indent}… showing {} of {} characters; --json prints all of them",
            thousands(shown),
            thousands(total)
        )?;
    }
    if envelope.facts.get("truncated").and_then(Value::as_bool) == Some(true) {
        writeln!(out, "{indent}… the read stopped at max_chars: the page has more")?;
    }
    Ok(())
}

/// Rows as an aligned table under a `name (count):` line: list rows take their headings from
/// the envelope's `columns`, object rows from their keys. Columns empty in every row are left
/// out; cells are one line, bounded.
fn table(
    out: &mut impl Write,
    name: &str,
    rows: &Value,
    columns: Option<&Value>,
    indent: &str,
    detail: Detail,
) -> io::Result<()> {
    let rows = rows.as_array().map(Vec::as_slice).unwrap_or_default();
    let shown = &rows[..rows.len().min(detail.rows)];
    let (headings, mut cells): (Vec<String>, Vec<Vec<String>>) = if rows.first().is_some_and(Value::is_array)
    {
        let cells: Vec<Vec<String>> =
            shown.iter().map(|row| row.as_array().into_iter().flatten().map(cell).collect()).collect();
        let named: Vec<&str> =
            columns.and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
        let width = cells.iter().map(Vec::len).max().unwrap_or(0);
        let headings = (0..width)
            .map(|i| named.get(i).map_or_else(|| format!("#{}", i + 1), |name| (*name).to_owned()))
            .collect();
        (headings, cells)
    } else {
        let mut headings: Vec<String> = Vec::new();
        for key in shown.iter().filter_map(Value::as_object).flat_map(|map| map.keys()) {
            if !headings.contains(key) {
                headings.push(key.clone());
            }
        }
        // The handle a row is about first; the rest in key order.
        headings.sort_by_key(|key| !LEADING_COLUMNS.contains(&key.as_str()));
        let cells = shown
            .iter()
            .map(|row| headings.iter().map(|key| row.get(key).map(cell).unwrap_or_default()).collect())
            .collect();
        (headings, cells)
    };
    for row in &mut cells {
        row.resize(headings.len(), String::new());
    }
    let used: Vec<usize> =
        (0..headings.len()).filter(|&i| cells.iter().any(|row| !row[i].is_empty())).collect();
    let widths: Vec<usize> = used
        .iter()
        .map(|&i| cells.iter().map(|row| row[i].chars().count()).chain([headings[i].chars().count()]).max())
        .map(Option::unwrap_or_default)
        .collect();
    writeln!(out, "{indent}{name} ({}):", rows.len())?;
    let line = |values: Vec<&str>| -> String {
        let padded: Vec<String> =
            values.iter().zip(&widths).map(|(value, width)| format!("{value:<width$}")).collect();
        format!("{indent}  {}", padded.join("  ").trim_end())
    };
    writeln!(out, "{}", line(used.iter().map(|&i| headings[i].as_str()).collect()))?;
    for row in &cells {
        writeln!(out, "{}", line(used.iter().map(|&i| row[i].as_str()).collect()))?;
    }
    if rows.len() > cells.len() {
        let more = rows.len() - cells.len();
        let noun = if more == 1 { "row" } else { "rows" };
        writeln!(out, "{indent}  … {more} more {noun}; --json prints all of them")?;
    }
    Ok(())
}

/// One cell: text as it is, lists joined with commas, `true` as `yes`, `false` and `null`
/// empty, anything else compact JSON; on one line and bounded.
fn cell(value: &Value) -> String {
    let text = match value {
        Value::String(text) => text.clone(),
        Value::Bool(true) => "yes".to_owned(),
        Value::Bool(false) | Value::Null => String::new(),
        Value::Array(items) => {
            items.iter().map(cell).filter(|item| !item.is_empty()).collect::<Vec<_>>().join(",")
        }
        other => other.to_string(),
    };
    let text = one_line(&text);
    if text.chars().count() > CELL_CHARS {
        let mut cut: String = text.chars().take(CELL_CHARS - 1).collect();
        cut.push('…');
        cut
    } else {
        text
    }
}

/// `text` on one line: control characters (line breaks, tabs, escapes) become spaces.
fn one_line(text: &str) -> String {
    text.chars().map(|c| if c.is_control() { ' ' } else { c }).collect()
}

/// `8000` as `8,000`.
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn envelope(facts: Value) -> Envelope {
        let facts = match facts {
            Value::Object(map) => map,
            _ => serde_json::Map::new(),
        };
        Envelope {
            invocation: "inv_test".into(),
            status: ghostlight_core::Status::Succeeded,
            effect: ghostlight_core::Effect::None,
            readiness: ghostlight_core::Readiness::Complete,
            repeat_safe: true,
            summary: "Done.".into(),
            facts,
            next_steps: Vec::new(),
        }
    }

    fn shown(envelope: &Envelope, detail: Detail) -> String {
        let mut out = Vec::new();
        facts(&mut out, envelope, "  ").unwrap_or_else(|e| panic!("{e}"));
        body(&mut out, envelope, "  ", detail).unwrap_or_else(|e| panic!("{e}"));
        String::from_utf8_lossy(&out).into_owned()
    }

    #[test]
    fn rows_are_a_table_with_the_envelope_columns() {
        let envelope = envelope(json!({
            "tab": "tab_1",
            "columns": ["target", "role", "name", "state", "credential"],
            "count": 3,
            "items": [["target_a", "textbox", "Password", [], true], ["target_b", "button", "Sign in", ["disabled"]], ["target_c", "link", "Help\nnow"]],
        }));
        let text = shown(&envelope, CALL);
        assert_eq!(
            text,
            "  tab: tab_1\n  items (3):\n    target    role     name      state     credential\n    \
             target_a  textbox  Password            yes\n    target_b  button   Sign in   disabled\n    \
             target_c  link     Help now\n"
        );
    }

    #[test]
    fn a_forms_snapshot_is_one_table_per_form() {
        let envelope = envelope(json!({
            "forms": [
                {"name": "Sign up", "fields": [
                    {"target": "target_a", "role": "textbox", "name": "Name", "validity": "valueMissing", "value": {"kind": "empty"}},
                ]},
                {"fields": [{"target": "target_b", "role": "button", "name": "Go"}]},
            ],
            "outside": [{"target": "target_c", "role": "searchbox", "name": "Search"}],
        }));
        let text = shown(&envelope, CALL);
        assert!(
            text.contains("  form 1 \"Sign up\" (1):\n    target    name  role     validity      value\n"),
            "{text}"
        );
        assert!(
            text.contains("  form 2 (1):\n    target    name  role\n    target_b  Go    button\n"),
            "{text}"
        );
        assert!(text.contains("  outside (1):\n"), "{text}");
        assert!(!text.contains("forms"), "{text}");
    }

    #[test]
    fn long_tables_and_texts_are_cut_with_a_note() {
        let rows: Vec<Value> =
            (0..25).map(|i| json!({"tab": format!("tab_{i}"), "active": i == 0})).collect();
        let text = shown(&envelope(json!({"tabs": rows})), STEP);
        assert!(text.starts_with("  tabs (25):\n    tab    active\n    tab_0  yes\n    tab_1\n"), "{text}");
        assert!(text.ends_with("    … 15 more rows; --json prints all of them\n"), "{text}");

        let page = "word ".repeat(2000);
        assert_eq!(page.chars().count(), 10000);
        let text = shown(&envelope(json!({"text": page, "truncated": true, "characters": 10000})), STEP);
        assert!(text.starts_with("  | word word"), "{text}");
        assert!(text.contains("… showing 600 of 10,000 characters; --json prints all of them\n"), "{text}");
        assert!(text.ends_with("… the read stopped at max_chars: the page has more\n"), "{text}");
        assert!(!text.contains("characters: 10000"), "{text}");
        // Twenty short lines fit in 600 characters: a form's confirmation line is never cut.
        let lines = (0..20).map(|i| format!("line {i}")).collect::<Vec<_>>().join("\n");
        let text = shown(&envelope(json!({"text": lines, "truncated": false})), STEP);
        assert!(text.ends_with("  | line 19\n"), "{text}");
        // A page of one-word lines stops at the line bound.
        let many = (0..100).map(|i| format!("w{i}")).collect::<Vec<_>>().join("\n");
        let text = shown(&envelope(json!({"text": many, "truncated": false})), STEP);
        assert!(
            text.ends_with("  | w59\n  … showing 229 of 389 characters; --json prints all of them\n"),
            "{text}"
        );
        let short = shown(&envelope(json!({"text": "Hello\nWorld", "truncated": false})), STEP);
        assert_eq!(short, "  | Hello\n  | World\n");
    }

    #[test]
    fn numbers_group_by_thousands() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(8000), "8,000");
        assert_eq!(thousands(1234567), "1,234,567");
    }
}
