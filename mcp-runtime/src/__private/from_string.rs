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

use super::{NotFromString, string_argument, string_probe};
use crate::error::McpError;
use crate::registry::{Prompt, PromptGet, ResourceRead, ResourceTemplate};
use serde::de::DeserializeOwned;
use std::fmt::Display;
use std::marker::PhantomData;
use std::str::FromStr;

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
