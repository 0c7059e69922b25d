//! A prompt argument or a URI template variable made from its string, for `#[prompt]` and
//! `#[resource]`, and the errors when it cannot be: with `FromStr` when the type has it, else with serde from the string (a unit
//! enum deriving `Deserialize` takes its variant's name); a type serde makes but never from a
//! string ([`NotFromString`]: `Vec<T>`, maps, tuples, ...) is refused in between, at compile
//! time. Defined once here; generated code names them (they were expanded into every prompt and
//! template before).
//!
//! Two steps. Method resolution picks the way, a value: `&&&Parse<T>` finds the `FromStr` impl
//! first (on `&&Parse<T>`), then the refusal (on `&Parse<T>`), then serde (on `Parse<T>`);
//! generated code brings the three `Find*` traits into scope. `<T as PromptArgument<Way>>` (or
//! [`TemplateVariable`]) then parses, its impl for the way carrying the bound (none for the
//! refusal). A type that does not meet it is reported at the type as written (the qualified
//! path's self type), worded by the trait's `on_unimplemented`.
//!
//! ```
//! use mcp_runtime::__private::{FindFromStr as _, FindRefused as _, FindSerde as _};
//! use mcp_runtime::__private::{Parse, PromptArgument};
//!
//! #[derive(Debug, PartialEq, serde::Deserialize)]
//! #[serde(rename_all = "lowercase")]
//! enum Tone { Formal, Casual }
//!
//! let way = (&&&Parse::<u8>::new()).__mcp_how();
//! assert_eq!(<u8 as PromptArgument<_>>::from_string(way, "7"), Ok(7));
//! let way = (&&&Parse::<Tone>::new()).__mcp_how();
//! assert_eq!(<Tone as PromptArgument<_>>::from_string(way, "casual"), Ok(Tone::Casual));
//! ```

use crate::error::McpError;
use crate::registry::{Prompt, PromptGet, ResourceRead, ResourceTemplate};
use serde::de::DeserializeOwned;
use std::fmt::Display;
use std::marker::PhantomData;
use std::str::FromStr;

/// A prompt argument or template variable (a string) read with serde: a unit enum deriving
/// `Deserialize` takes its variant's name.
pub fn string_argument<T: serde::de::DeserializeOwned>(s: &str) -> Result<T, String> {
    use serde::de::IntoDeserializer;
    let de: serde::de::value::StrDeserializer<'_, serde::de::value::Error> = s.into_deserializer();
    T::deserialize(de).map_err(|e| e.to_string())
}

/// What serde expects instead of a string, when `T` refuses every string as such (a struct, a
/// newtype or tuple struct deriving `Deserialize`): the type is asked for through the same
/// string deserializer as [`string_argument`], with an error that tells a refused *type* (no
/// string could do) from a refused *value* (another string could). Generated code asks it at
/// registration for each prompt argument and template variable that takes serde's way, so
/// that such a type is a startup error naming the argument, not a `-32602` on every call.
///
/// ```
/// use mcp_runtime::__private::string_probe;
/// #[derive(serde::Deserialize)]
/// struct Tags { first: String }
/// #[derive(serde::Deserialize)]
/// #[serde(rename_all = "lowercase")]
/// enum Tone { Formal, Casual }
/// assert!(string_probe::<Tags>().unwrap().contains("struct Tags"));
/// assert_eq!(string_probe::<Tone>(), None);
/// assert_eq!(string_probe::<String>(), None);
/// ```
pub fn string_probe<T: serde::de::DeserializeOwned>() -> Option<String> {
    use serde::de::value::StrDeserializer;
    let de = StrDeserializer::<ProbeError>::new("");
    T::deserialize(de).err()?.refused_type
}

/// The error of [`string_probe`]: set when a string was refused as a type.
#[derive(Debug, Default)]
struct ProbeError {
    refused_type: Option<String>,
}

impl std::fmt::Display for ProbeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("probe")
    }
}

impl std::error::Error for ProbeError {}

impl serde::de::Error for ProbeError {
    fn custom<M: std::fmt::Display>(_: M) -> Self {
        ProbeError::default()
    }
    fn invalid_type(
        unexpected: serde::de::Unexpected<'_>,
        expected: &dyn serde::de::Expected,
    ) -> Self {
        let refused_type =
            matches!(unexpected, serde::de::Unexpected::Str(_)).then(|| expected.to_string());
        ProbeError { refused_type }
    }
}

/// Types serde can make, but never from a string: sequences, sets, maps, tuples, arrays, `()`
/// and `Option` (an optional argument is `Option<T>` in the signature itself, of a `T` made
/// from a string). A prompt argument or template variable arrives as a string: the macros find
/// this marker before their serde fallback and refuse such a type at compile time, where serde
/// would refuse every call.
///
/// ```
/// use mcp_runtime::__private::NotFromString;
///
/// fn refused<T: NotFromString + ?Sized>() {}
/// refused::<Vec<String>>();
/// refused::<std::collections::HashMap<String, u32>>();
/// refused::<(String, String)>();
/// ```
pub trait NotFromString {}

impl<T> NotFromString for Vec<T> {}
impl<T> NotFromString for std::collections::VecDeque<T> {}
impl<T> NotFromString for std::collections::LinkedList<T> {}
impl<T> NotFromString for std::collections::BinaryHeap<T> {}
impl<T> NotFromString for std::collections::BTreeSet<T> {}
impl<T, S> NotFromString for std::collections::HashSet<T, S> {}
impl<K, V> NotFromString for std::collections::BTreeMap<K, V> {}
impl<K, V, S> NotFromString for std::collections::HashMap<K, V, S> {}
impl NotFromString for serde_json::Map<String, serde_json::Value> {}
impl<T> NotFromString for [T] {}
impl<T, const N: usize> NotFromString for [T; N] {}
impl<T: NotFromString + ?Sized> NotFromString for Box<T> {}
impl<T> NotFromString for Option<T> {}

macro_rules! not_from_string_tuples {
    ($(($($t:ident),*)),*) => {$(
        impl<$($t),*> NotFromString for ($($t,)*) {}
    )*};
}
not_from_string_tuples!(
    (),
    (A),
    (A, B),
    (A, B, C),
    (A, B, C, D),
    (A, B, C, D, E),
    (A, B, C, D, E, F),
    (A, B, C, D, E, F, G),
    (A, B, C, D, E, F, G, H),
    (A, B, C, D, E, F, G, H, I),
    (A, B, C, D, E, F, G, H, I, J),
    (A, B, C, D, E, F, G, H, I, J, K),
    (A, B, C, D, E, F, G, H, I, J, K, L),
    (A, B, C, D, E, F, G, H, I, J, K, L, M),
    (A, B, C, D, E, F, G, H, I, J, K, L, M, N),
    (A, B, C, D, E, F, G, H, I, J, K, L, M, N, O),
    (A, B, C, D, E, F, G, H, I, J, K, L, M, N, O, P)
);

/// The receiver whose method resolution picks the way `T` is made from a string.
pub struct Parse<T>(PhantomData<T>);

impl<T> Parse<T> {
    /// The receiver for `T`.
    #[allow(clippy::new_without_default)] // named in generated code only
    pub const fn new() -> Self {
        Parse(PhantomData)
    }
}

/// The way of `FromStr`.
pub struct ViaFromStr;
/// A type refused: serde makes it, but never from a string.
pub struct Refused;
/// The way of serde, from the string.
pub struct ViaSerde;

/// Finds `FromStr` (on `&&Parse<T>`).
pub trait FindFromStr<T> {
    /// The way.
    fn __mcp_how(&self) -> ViaFromStr;
}

impl<T> FindFromStr<T> for &&Parse<T>
where
    T: FromStr,
    <T as FromStr>::Err: Display,
{
    fn __mcp_how(&self) -> ViaFromStr {
        ViaFromStr
    }
}

/// Finds a type serde makes, but never from a string (on `&Parse<T>`): refused (no parsing
/// impl) before the serde fallback would take it and fail every call.
pub trait FindRefused<T> {
    /// The way.
    fn __mcp_how(&self) -> Refused;
}

impl<T: NotFromString> FindRefused<T> for &Parse<T> {
    fn __mcp_how(&self) -> Refused {
        Refused
    }
}

/// The fallback, serde (on `Parse<T>`, no bound: method resolution always finds it).
pub trait FindSerde<T> {
    /// The way.
    fn __mcp_how(&self) -> ViaSerde;
}

impl<T> FindSerde<T> for Parse<T> {
    fn __mcp_how(&self) -> ViaSerde {
        ViaSerde
    }
}

/// Never ways: with two impls that hold for every type, no type has a single impl that fits
/// whatever the way, so the way is not inferred from the impls (eagerly, before the call's
/// argument names it, which would answer with a type mismatch).
pub enum NoWay {}
/// The second never way.
pub enum NoWayEither {}

/// A parsing trait per noun (the `on_unimplemented` message names what arrives as a string),
/// with its impls for each way.
macro_rules! from_string {
    ($(#[$doc:meta])* $name:ident, $message:literal) => {
        $(#[$doc])*
        #[diagnostic::on_unimplemented(
            message = $message,
            label = "parsed with `FromStr`, or with serde from the string",
            note = "use `String`, a number, `bool`, a type implementing `std::str::FromStr` (whose `Err` implements `Display`), or a fieldless enum deriving `serde::Deserialize` (an optional one: `Option<T>` of these, written so in the signature); for a list or a map, take a `String` and split it"
        )]
        pub trait $name<Way>: Sized {
            /// The value of `s`, or why not.
            fn from_string(way: Way, s: &str) -> Result<Self, String>;
            /// What serde expects instead of a string, when the type refuses every one.
            fn refuses_strings(_: Way) -> Option<String> {
                None
            }
        }

        impl<T> $name<ViaFromStr> for T
        where
            T: FromStr,
            <T as FromStr>::Err: Display,
        {
            fn from_string(_: ViaFromStr, s: &str) -> Result<T, String> {
                <T as FromStr>::from_str(s).map_err(|e| e.to_string())
            }
        }

        impl<T> $name<NoWay> for T {
            fn from_string(way: NoWay, _: &str) -> Result<T, String> {
                match way {}
            }
        }

        impl<T> $name<NoWayEither> for T {
            fn from_string(way: NoWayEither, _: &str) -> Result<T, String> {
                match way {}
            }
        }

        impl<T: DeserializeOwned> $name<ViaSerde> for T {
            fn from_string(_: ViaSerde, s: &str) -> Result<T, String> {
                string_argument(s)
            }
            fn refuses_strings(_: ViaSerde) -> Option<String> {
                string_probe::<T>()
            }
        }
    };
}

from_string!(
    /// A `#[prompt]` argument, made from its string.
    PromptArgument,
    "prompt arguments arrive as strings: `{Self}` cannot be made from one"
);
from_string!(
    /// A `#[resource]` URI template variable, made from its string.
    TemplateVariable,
    "template variables arrive as strings: `{Self}` cannot be made from one"
);

/// The `-32602` of a prompt argument its type does not take (the same words for every prompt,
/// written once here).
#[cold]
#[inline(never)]
pub fn invalid_prompt_argument(
    get: &PromptGet,
    argument: &str,
    value: &str,
    why: String,
) -> McpError {
    McpError::invalid_params(format!(
        "Invalid params: argument `{argument}` of prompt `{}` is not valid ({value:?}): {why}",
        get.name
    ))
}

/// The `-32602` of a required prompt argument the client left out.
#[cold]
#[inline(never)]
pub fn missing_prompt_argument(get: &PromptGet, argument: &str) -> McpError {
    McpError::invalid_params(format!(
        "Invalid params: prompt `{}` requires the argument `{argument}`",
        get.name
    ))
}

/// The prompt, invalid (a startup error) when its argument's type, written `written`, refuses
/// every string (`expects`: what serde expects instead, from `refuses_strings`).
pub fn refused_prompt_argument(
    prompt: Prompt,
    argument: &str,
    written: &str,
    expects: Option<String>,
) -> Prompt {
    match expects {
        None => prompt,
        Some(expects) => prompt.invalid(format!(
            "its argument `{argument}` is a `{written}`, which is never made from a string (serde expects {expects}): prompt arguments arrive as strings; take a `String`, a number, `bool`, a fieldless enum or a type implementing `FromStr`"
        )),
    }
}

/// The `-32602` of a URI variable its type does not take, with the URI as data.
#[cold]
#[inline(never)]
pub fn invalid_variable(read: &ResourceRead, variable: &str, value: &str, why: String) -> McpError {
    let mut data = serde_json::Map::new();
    data.insert("uri".into(), serde_json::Value::String(read.uri.clone()));
    McpError::invalid_params(format!(
        "Invalid params: `{value}` is not a valid value of the URI variable `{variable}` in {}: {why}",
        read.uri
    ))
    .with_data(serde_json::Value::Object(data))
}

/// The template, invalid (a startup error) when its variable's type, written `written`,
/// refuses every string (`expects`: what serde expects instead).
pub fn refused_variable(
    template: ResourceTemplate,
    variable: &str,
    written: &str,
    expects: Option<String>,
) -> ResourceTemplate {
    match expects {
        None => template,
        Some(expects) => template.invalid(format!(
            "its variable `{variable}` is a `{written}`, which is never made from a string (serde expects {expects}): URI variables arrive as strings; take a `String`, a number, `bool`, a fieldless enum or a type implementing `FromStr`"
        )),
    }
}
