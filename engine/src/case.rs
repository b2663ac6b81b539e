//! The checks of a run: each a [`Case`] that passes or fails with a message, as every door
//! reports them (the command's JUnit test cases and text summary, the C ABI's reports).

use serde::Serialize;

/// Pass or fail of one check.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// The DUT did what the model says.
    Pass,
    /// It did not.
    Fail,
}

/// One check: one JUnit test case.
#[derive(Clone, Debug, Serialize)]
pub struct Case {
    /// The group, e.g. `frames` or `pcs` (JUnit classname).
    pub group: String,
    /// The test case name, e.g. `frame 3 (60 octets)`.
    pub name: String,
    /// Pass or fail.
    pub outcome: Outcome,
    /// One line saying what diverged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Context: decoded lanes, positions, the rule that fired.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

impl Case {
    /// A passing case.
    pub fn pass(group: &str, name: impl Into<String>) -> Self {
        Self {
            group: group.into(),
            name: name.into(),
            outcome: Outcome::Pass,
            message: None,
            detail: None,
        }
    }

    /// A failing case.
    pub fn fail(
        group: &str,
        name: impl Into<String>,
        message: impl Into<String>,
        detail: Option<String>,
    ) -> Self {
        Self {
            group: group.into(),
            name: name.into(),
            outcome: Outcome::Fail,
            message: Some(message.into()),
            detail,
        }
    }

    /// True for a failing case.
    pub fn failed(&self) -> bool {
        self.outcome == Outcome::Fail
    }
}
