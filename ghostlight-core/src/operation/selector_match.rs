//! Matching semantic selectors and ranking `browser_find` results.
//!
//! Selectors and `browser_find` share one notion of what an element is called: its accessible
//! name or, where that differs, its visible text ([`element_rank`]). Both are compared after
//! normalization. A selector with `exact: true` needs one of them exactly (case-sensitive);
//! otherwise one must contain the selector's text, case-insensitively, and matches are
//! ranked: the exact name, the name in another case, a name that starts with the text, a name
//! that contains it. The best tier must hold exactly one element, or the selector is
//! ambiguous.

use crate::language::normalize_name;
use crate::port::PerceivedElement;
use crate::selector::{Role, Selector};

/// How well a name or text matches a query (lower is better).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum MatchRank {
    Exact,
    CaseInsensitive,
    Prefix,
    Substring,
}

/// Rank `candidate` against `query` (both normalized first).
pub(crate) fn rank(query: &str, candidate: &str) -> Option<MatchRank> {
    let query = normalize_name(query)?;
    let candidate = normalize_name(candidate)?;
    if candidate == query {
        return Some(MatchRank::Exact);
    }
    let (q, c) = (query.to_lowercase(), candidate.to_lowercase());
    if c == q {
        Some(MatchRank::CaseInsensitive)
    } else if c.starts_with(&q) {
        Some(MatchRank::Prefix)
    } else if c.contains(&q) {
        Some(MatchRank::Substring)
    } else {
        None
    }
}

/// The outcome of matching a selector.
#[derive(Debug)]
pub(crate) enum SelectorMatch<'e> {
    One(&'e PerceivedElement),
    None,
    /// Every element of the best tier (two or more).
    Ambiguous(Vec<&'e PerceivedElement>),
}

/// Match `selector` against perceived `elements`.
pub(crate) fn match_selector<'e>(selector: &Selector, elements: &'e [PerceivedElement]) -> SelectorMatch<'e> {
    let mut best: Option<MatchRank> = None;
    let mut tier: Vec<&PerceivedElement> = Vec::new();
    for element in elements {
        if selector.role.is_some_and(|role| Role::narrow(&element.role) != role) {
            continue;
        }
        let Some(found) = element_rank(&selector.name, element) else { continue };
        if selector.exact && found != MatchRank::Exact {
            continue;
        }
        match best {
            Some(current) if found > current => {}
            Some(current) if found == current => tier.push(element),
            _ => {
                best = Some(found);
                tier = vec![element];
            }
        }
    }
    match tier.as_slice() {
        [] => SelectorMatch::None,
        [one] => SelectorMatch::One(one),
        _ => SelectorMatch::Ambiguous(tier),
    }
}

/// How many of `elements` match `selector` at all (any rank; `exact` and `role` as for
/// [`match_selector`]).
pub(crate) fn count_matches(selector: &Selector, elements: &[PerceivedElement]) -> usize {
    elements
        .iter()
        .filter(|element| selector.role.is_none_or(|role| Role::narrow(&element.role) == role))
        .filter_map(|element| element_rank(&selector.name, element))
        .filter(|rank| !selector.exact || *rank == MatchRank::Exact)
        .count()
}

/// The name an element is shown by: its accessible name, else its visible text (never an
/// editable value: perception reports none as text).
pub(crate) fn shown_name(element: &PerceivedElement) -> Option<String> {
    element
        .name
        .as_deref()
        .and_then(normalize_name)
        .or_else(|| element.text.as_deref().and_then(normalize_name))
}

/// The best rank of an element's name or visible text for `query`: the one notion of what an
/// element is called that selectors and `browser_find` share.
pub(crate) fn element_rank(query: &str, element: &PerceivedElement) -> Option<MatchRank> {
    let by_name = element.name.as_deref().and_then(|name| rank(query, name));
    let by_text = element.text.as_deref().and_then(|text| rank(query, text));
    match (by_name, by_text) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::port::ElementRef;

    fn element(role: &str, name: &str) -> PerceivedElement {
        PerceivedElement {
            element: ElementRef::new(name),
            role: role.into(),
            name: Some(name.into()),
            states: Vec::new(),
            credential: None,
            depth: None,
            text: None,
            control: true,
            form: None,
        }
    }

    fn selector(name: &str, role: Option<Role>, exact: bool) -> Selector {
        Selector { name: name.into(), role, exact }
    }

    #[test]
    fn exact_names_rank_first() {
        let page = [element("button", "Save draft"), element("button", "Save"), element("link", "save")];
        match match_selector(&selector("Save", None, false), &page) {
            SelectorMatch::One(found) => assert_eq!(found.name.as_deref(), Some("Save")),
            other => panic!("{other:?}"),
        }
        match match_selector(&selector("sav", None, false), &page) {
            SelectorMatch::Ambiguous(all) => assert_eq!(all.len(), 3),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn role_filters_and_exact_requires_the_name() {
        let page = [element("button", "Save"), element("link", "Save")];
        assert!(matches!(
            match_selector(&selector("Save", Some(Role::Link), false), &page),
            SelectorMatch::One(_)
        ));
        assert!(matches!(match_selector(&selector("save", None, true), &page), SelectorMatch::None));
        assert!(matches!(match_selector(&selector("Save", None, true), &page), SelectorMatch::Ambiguous(_)));
        assert!(matches!(match_selector(&selector("Open", None, false), &page), SelectorMatch::None));
    }

    #[test]
    fn a_selector_matches_what_find_matches_the_name_or_the_visible_text() {
        // A drop zone called "drop target" that shows other words: find ranks it by its
        // name, and so must a selector (it once matched the text only and found nothing).
        let mut zone = element("generic", "drop target");
        zone.text = Some("Drop files here".into());
        let page = [zone];
        assert!(element_rank("drop target", &page[0]).is_some());
        assert!(matches!(
            match_selector(&selector("drop target", None, false), &page),
            SelectorMatch::One(_)
        ));
        assert!(matches!(match_selector(&selector("drop target", None, true), &page), SelectorMatch::One(_)));
        assert!(matches!(match_selector(&selector("Drop files", None, false), &page), SelectorMatch::One(_)));
        assert_eq!(shown_name(&page[0]).as_deref(), Some("drop target"));
        let mut unnamed = element("generic", "x");
        unnamed.name = None;
        unnamed.text = Some("Drop here".into());
        assert_eq!(shown_name(&unnamed).as_deref(), Some("Drop here"));
    }

    #[test]
    fn ranks() {
        assert_eq!(rank("Save", "Save"), Some(MatchRank::Exact));
        assert_eq!(rank("save", " SAVE "), Some(MatchRank::CaseInsensitive));
        assert_eq!(rank("sa", "Save"), Some(MatchRank::Prefix));
        assert_eq!(rank("av", "Save"), Some(MatchRank::Substring));
        assert_eq!(rank("x", "Save"), None);
    }
}
