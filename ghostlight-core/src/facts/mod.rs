//! Typed facts: every member an envelope's `facts` may carry is a [`FactKey`] declared once, in
//! a table that also renders the output schema, so an undeclared, misspelled or mistyped fact
//! does not compile.
//!
//! - A tool's own facts are declared by [`tool_facts!`] in its `tools/<name>/mod.rs`; the macro
//!   makes the tool's `facts` module (typed keys plus `ALL`, the output schema's list in order).
//! - [`common`] holds the facts every tool's output schema lists (refusal reasons and hosts).
//! - [`detail`] holds the details a refusal or failure may add whatever the tool (the facts
//!   object is open for them, so they are typed here but not rendered into every schema).
//!
//! A tool's `facts` module re-exports both shared tables, so an operation names every fact it
//! reports through one path: `facts::ACTIVATED`, `facts::HOST`, `facts::TIMEOUT_MS`.

use std::marker::PhantomData;

use serde_json::{Map, Value};

mod declaration;
mod output_schema;
mod shared;

pub(crate) use declaration::{Fact, FactType};
pub(crate) use output_schema::{fact_mismatches, render_output_schema};
pub(crate) use shared::{common, detail};

/// A declared fact: its name, JSON type and description, with the Rust values it accepts
/// fixed by the kind `K`.
#[derive(Debug)]
pub(crate) struct FactKey<K> {
    fact: Fact,
    kind: PhantomData<fn() -> K>,
}

impl<K> Clone for FactKey<K> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<K> Copy for FactKey<K> {}

impl<K: FactKind> FactKey<K> {
    /// A fact of kind `K` (its JSON type is the kind's).
    pub(crate) const fn new(name: &'static str, description: &'static str) -> Self {
        FactKey { fact: Fact::new(name, K::TYPE, description), kind: PhantomData }
    }
}

impl FactKey<Json> {
    /// A fact whose value is structured JSON of the declared shape (objects, rows, any value).
    pub(crate) const fn structured(name: &'static str, ty: FactType, description: &'static str) -> Self {
        FactKey { fact: Fact::new(name, ty, description), kind: PhantomData }
    }
}

impl<K> FactKey<K> {
    /// The declaration the output schema renders.
    pub(crate) const fn fact(&self) -> Fact {
        self.fact
    }

    /// The member name in `facts`.
    pub(crate) const fn name(&self) -> &'static str {
        self.fact.name
    }
}

/// The kind of a fact: its JSON type and the Rust values that become it.
pub(crate) trait FactKind {
    /// The JSON type the output schema declares.
    const TYPE: FactType;
}

/// Turns a Rust value into the JSON value of a fact of kind `K`.
pub(crate) trait IntoFact<K> {
    /// The JSON value.
    fn into_fact(self) -> Value;
}

/// A string fact.
#[derive(Debug)]
pub(crate) enum Str {}
/// A string fact that may be `null`.
#[derive(Debug)]
pub(crate) enum NullableStr {}
/// An integer fact.
#[derive(Debug)]
pub(crate) enum Int {}
/// An integer fact that may be `null`.
#[derive(Debug)]
pub(crate) enum NullableInt {}
/// A boolean fact.
#[derive(Debug)]
pub(crate) enum Bool {}
/// An array-of-strings fact.
#[derive(Debug)]
pub(crate) enum Strs {}
/// A structured fact (object, rows, objects, any value), checked against its declared shape.
#[derive(Debug)]
pub(crate) enum Json {}

impl FactKind for Str {
    const TYPE: FactType = FactType::String;
}
impl FactKind for NullableStr {
    const TYPE: FactType = FactType::NullableString;
}
impl FactKind for Int {
    const TYPE: FactType = FactType::Integer;
}
impl FactKind for NullableInt {
    const TYPE: FactType = FactType::NullableInteger;
}
impl FactKind for Bool {
    const TYPE: FactType = FactType::Boolean;
}
impl FactKind for Strs {
    const TYPE: FactType = FactType::StringArray;
}
impl FactKind for Json {
    const TYPE: FactType = FactType::Any;
}

impl<T: Into<String>> IntoFact<Str> for T {
    fn into_fact(self) -> Value {
        Value::String(self.into())
    }
}

impl<T: Into<String>> IntoFact<NullableStr> for Option<T> {
    fn into_fact(self) -> Value {
        self.map_or(Value::Null, |text| Value::String(text.into()))
    }
}

impl IntoFact<NullableStr> for &str {
    fn into_fact(self) -> Value {
        Value::String(self.to_owned())
    }
}

impl IntoFact<NullableStr> for String {
    fn into_fact(self) -> Value {
        Value::String(self)
    }
}

macro_rules! integer_facts {
    ($($ty:ty),+) => {$(
        impl IntoFact<Int> for $ty {
            fn into_fact(self) -> Value {
                Value::from(self)
            }
        }
        impl IntoFact<NullableInt> for $ty {
            fn into_fact(self) -> Value {
                Value::from(self)
            }
        }
    )+};
}
integer_facts!(u8, u16, u32, u64, usize, i32, i64);

impl<T: IntoFact<Int>> IntoFact<NullableInt> for Option<T> {
    fn into_fact(self) -> Value {
        self.map_or(Value::Null, IntoFact::into_fact)
    }
}

impl IntoFact<Bool> for bool {
    fn into_fact(self) -> Value {
        Value::Bool(self)
    }
}

impl<I> IntoFact<Strs> for I
where
    I: IntoIterator,
    I::Item: AsRef<str>,
{
    fn into_fact(self) -> Value {
        Value::Array(self.into_iter().map(|item| Value::String(item.as_ref().to_owned())).collect())
    }
}

impl<T: Into<Value>> IntoFact<Json> for T {
    fn into_fact(self) -> Value {
        self.into()
    }
}

/// Insert the fact `key` into `facts` (for refusals built outside the executor).
pub(crate) fn put<K>(facts: &mut Map<String, Value>, key: FactKey<K>, value: impl IntoFact<K>) {
    facts.insert(key.name().to_owned(), value.into_fact());
}

/// Declares typed fact keys, one line a fact, and `$list`, their declarations in order.
macro_rules! fact_table {
    ($list:ident; $($key:ident : $kind:ident $(($($arg:expr),+ $(,)?))? $(= $shared:expr)?),+ $(,)?) => {
        $( $crate::facts::fact_table!(@key $key : $kind $(($($arg),+))? $(= $shared)?); )+
        /// The declarations of these facts, in output-schema order.
        pub(crate) const $list: &[$crate::facts::Fact] = &[$($key.fact()),+];
    };
    (@key $key:ident : Json($name:expr, $ty:expr, $description:expr)) => {
        pub(crate) const $key: $crate::facts::FactKey<$crate::facts::Json> =
            $crate::facts::FactKey::structured($name, $ty, $description);
    };
    (@key $key:ident : $kind:ident($name:expr, $description:expr)) => {
        pub(crate) const $key: $crate::facts::FactKey<$crate::facts::$kind> =
            $crate::facts::FactKey::new($name, $description);
    };
    (@key $key:ident : $kind:ident = $shared:expr) => {
        pub(crate) const $key: $crate::facts::FactKey<$crate::facts::$kind> = $shared;
    };
}
pub(crate) use fact_table;

/// Declares a tool's facts as its `facts` module: one line a fact, in output-schema order.
///
/// ```text
/// tool_facts! {
///     TAB: Str("tab", "Tab handle."),                   // a fact of this tool
///     LANDING: Json = crate::tools::common::LANDING,     // a fact shared with other tools
///     ITEMS: Json("items", FactType::Rows(&[…]), "…"),   // a structured fact
/// }
/// ```
///
/// The module also re-exports [`common`] and [`detail`], so the tool's operation names every
/// fact it reports through `facts::`; its own declarations shadow shared ones of the same name.
macro_rules! tool_facts {
    ($($body:tt)+) => {
        /// The facts this tool reports: typed keys, the shared ones, and `ALL` for the output schema.
        pub(crate) mod facts {
            #[allow(unused_imports)]
            use $crate::facts::{Fact, FactType};
            #[allow(unused_imports)]
            pub(crate) use $crate::facts::common::*;
            #[allow(unused_imports)]
            pub(crate) use $crate::facts::detail::*;
            $crate::facts::fact_table!(ALL; $($body)+);
        }
    };
}
pub(crate) use tool_facts;
