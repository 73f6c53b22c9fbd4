//! The declaration of one output fact and its JSON type, as the output schema renders it.

/// One declared output fact (a property of the envelope's `facts`).
#[derive(Debug, Clone, Copy)]
pub struct Fact {
    /// Property name.
    pub name: &'static str,
    /// Value type.
    pub ty: FactType,
    /// Concise description.
    pub description: &'static str,
}

impl Fact {
    /// A fact declaration.
    pub const fn new(name: &'static str, ty: FactType, description: &'static str) -> Self {
        Fact { name, ty, description }
    }
}

/// The JSON type of an output fact.
#[derive(Debug, Clone, Copy)]
pub enum FactType {
    /// A string.
    String,
    /// A string, or `null` when not applicable.
    NullableString,
    /// An integer.
    Integer,
    /// An integer, or `null` when not applicable.
    NullableInteger,
    /// A boolean.
    Boolean,
    /// Any JSON value (for example a script result), rendered as a union of every JSON type.
    Any,
    /// An array of strings.
    StringArray,
    /// An array of objects with the listed members.
    ObjectArray(&'static [Fact]),
    /// An array of rows: each row an array whose positions are the listed columns, trailing
    /// empty columns omitted (compact: every agent reads facts twice). The schema states the
    /// columns in the row's description and their types as one union, because a positional
    /// (tuple) schema reads differently in draft-07 and 2020-12 validators.
    Rows {
        /// The columns, in row order.
        columns: &'static [Fact],
        /// How many leading columns every row has.
        always: usize,
    },
    /// An object with the listed members.
    Object(&'static [Fact]),
    /// An object whose members are counts (integers), keyed by what they count.
    Counts,
    /// A value of either type (a row column whose meaning the `columns` fact names).
    Either(&'static FactType, &'static FactType),
}
