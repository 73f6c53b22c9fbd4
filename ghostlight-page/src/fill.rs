//! The fill script's language, shared by every adapter that runs `fill.js` (the WebDriver
//! adapter's `scripts/input/fill.js`): how a value is encoded for it, and what its answer
//! means as a [`PortResult`].

use serde::Deserialize;
use serde_json::{Value, json};

use ghostlight_core::port::{FillValue, PortError, PortErrorKind, PortResult};

/// A fill value as the script takes it (`None` for a number that is not finite).
pub fn encode_value(value: &FillValue) -> Option<Value> {
    match value {
        FillValue::Text(text) => Some(json!({ "t": "text", "v": text })),
        FillValue::Checked(checked) => Some(json!({ "t": "checked", "v": checked })),
        FillValue::Number(number) if number.is_finite() => Some(json!({ "t": "number", "v": number })),
        FillValue::Number(_) => None,
        FillValue::Options(options) => Some(json!({ "t": "options", "v": options })),
    }
}

/// The fill script's answer: `{status: 'ok', filled}` or `{status: 'invalid', index, reason}`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct FillAnswer {
    /// `ok` or `invalid`.
    pub status: String,
    /// Fields set (`ok`).
    #[serde(default)]
    pub filled: usize,
    /// The misfit field's position among the fields the script was given (`invalid`).
    pub index: Option<usize>,
    /// Why it does not fit (`invalid`).
    pub reason: Option<String>,
    /// Whether every control already is as the fill would leave it (a `'compare'` run).
    #[serde(default)]
    pub equal: Option<bool>,
    /// The page state read before anything was set (`ok`, when the adapter asked for it), as
    /// the page-state script answers it.
    #[serde(default)]
    pub state: Option<Value>,
}

impl FillAnswer {
    /// The answer of a `'compare'` run over one control: whether it is as `expected` would
    /// leave it, `None` when its element is gone.
    pub fn compared(&self) -> PortResult<Option<bool>> {
        match self.outcome(&[0]) {
            Ok(_) => self
                .equal
                .map(Some)
                .ok_or_else(|| PortError::new(PortErrorKind::Other, "the fill script did not compare")),
            Err(e) if e.kind() == PortErrorKind::TargetStale => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// The fields set, or the refusal. `fields` holds, for each field the script was given in
    /// its order, that field's index in the whole fill (what an invalid-field error names).
    pub fn outcome(&self, fields: &[usize]) -> PortResult<usize> {
        match self.status.as_str() {
            "ok" => Ok(self.filled),
            "invalid" => {
                let at = self.index.and_then(|i| fields.get(i)).copied();
                let reason = self.reason.as_deref().unwrap_or_default();
                match at {
                    Some(_) if reason == "detached" => Err(PortError::new(
                        PortErrorKind::TargetStale,
                        "a field's element is no longer in the page",
                    )),
                    Some(index) => Err(PortError::invalid_field(index, refusal(reason))),
                    None => Err(PortError::new(PortErrorKind::Other, "the fill script named no field")),
                }
            }
            _ => Err(PortError::new(PortErrorKind::Other, "the fill script answered an unknown status")),
        }
    }
}

/// Our words for the script's refusal reasons.
fn refusal(reason: &str) -> &'static str {
    match reason {
        "control" => "the element is not a control that can be filled",
        "disabled" => "the control is disabled",
        "readonly" => "the control is read-only",
        "kind" => "the value's type does not fit the control",
        "length" => "the text is longer than the control allows",
        "format" => "the text does not fit the input's type",
        "number" => "the value is not a number",
        "range" => "the number is outside the control's range or off its step",
        "option" => "no option of the list matches the value",
        "option_disabled" => "the matching option is disabled",
        "single" => "the list takes one option: give one value, not a list of several",
        "radio_off" => "a checked radio button cannot be unchecked",
        _ => "the value does not fit the control",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_encode_for_the_script() {
        assert_eq!(encode_value(&FillValue::Text("a".into())), Some(json!({"t": "text", "v": "a"})));
        assert_eq!(encode_value(&FillValue::Checked(true)), Some(json!({"t": "checked", "v": true})));
        assert_eq!(encode_value(&FillValue::Number(2.5)), Some(json!({"t": "number", "v": 2.5})));
        assert_eq!(encode_value(&FillValue::Number(f64::NAN)), None);
        assert_eq!(
            encode_value(&FillValue::Options(vec!["a".into(), "B".into()])),
            Some(json!({"t": "options", "v": ["a", "B"]}))
        );
    }

    #[test]
    fn every_reason_has_own_words() {
        for reason in
            ["control", "disabled", "readonly", "kind", "length", "format", "number", "range", "option"]
        {
            assert_ne!(refusal(reason), refusal("something else"), "{reason}");
        }
    }

    #[test]
    fn answers_name_the_whole_fill_field() {
        let ok = FillAnswer {
            status: "ok".into(),
            filled: 2,
            index: None,
            reason: None,
            equal: None,
            state: None,
        };
        assert_eq!(ok.outcome(&[0, 1]).ok(), Some(2));
        let misfit = FillAnswer {
            status: "invalid".into(),
            filled: 0,
            index: Some(1),
            reason: Some("range".into()),
            equal: None,
            state: None,
        };
        let error = misfit.outcome(&[4, 7]).expect_err("a misfit");
        assert_eq!(error.kind(), PortErrorKind::InvalidInput);
        let gone = FillAnswer { reason: Some("detached".into()), ..misfit };
        assert_eq!(gone.outcome(&[4, 7]).expect_err("gone").kind(), PortErrorKind::TargetStale);
    }

    #[test]
    fn comparisons_answer_equal_or_gone() {
        let answer = |json: Value| serde_json::from_value::<FillAnswer>(json).expect("an answer");
        assert_eq!(
            answer(json!({"status": "ok", "filled": 0, "equal": true})).compared().ok(),
            Some(Some(true))
        );
        assert_eq!(
            answer(json!({"status": "ok", "filled": 0, "equal": false})).compared().ok(),
            Some(Some(false))
        );
        let gone = answer(json!({"status": "invalid", "index": 0, "reason": "detached"}));
        assert_eq!(gone.compared().ok(), Some(None));
        let misfit = answer(json!({"status": "invalid", "index": 0, "reason": "kind"})).compared();
        assert_eq!(misfit.map_err(|e| e.kind()), Err(PortErrorKind::InvalidInput));
        assert!(answer(json!({"status": "ok", "filled": 0})).compared().is_err());
    }
}
