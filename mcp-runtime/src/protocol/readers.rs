//! Readers of the protocol types that serde's derive would read through its buffered `Content`
//! (internally tagged, untagged and `flatten`ed types): content blocks, sampling content,
//! resource contents and completion references.
//!
//! A derived reader of such a type buffers the value and reads every nested type again from
//! the buffer, once for each of serde's two buffer readers, so each nested type's reading code
//! is compiled two or three times. These read each type once: a tagged block as a JSON object
//! whose `type` picks the variant, read from that object; the others in one pass. They were
//! 3.4 % of the runtime's code (BENCHMARKS.md, "Metrics, result views and patterns behind
//! features").
//! `tests` below pins what they accept and refuse.

use super::content::{Content, EmbeddedResource, MediaContent, Resource, ResourceBody};
use super::content::{ResourceContents, ResourceLink, TextContent};
use super::messages::CompletionReference;
use super::object::object;
use super::sampling::{SamplingBlock, SamplingContent};
use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use std::fmt;

/// The `type`s of a [`Content`] block.
const CONTENT_KINDS: &[&str] = &["text", "image", "audio", "resource_link", "resource"];

/// A JSON object's members, each once (as derived readers require of a struct's fields).
struct Members(Map<String, Value>);

impl<'de> Deserialize<'de> for Members {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Members;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Members, A::Error> {
                let mut out = Map::new();
                while let Some(key) = map.next_key::<String>()? {
                    if out.contains_key(&key) {
                        return Err(de::Error::custom(format_args!("duplicate field `{key}`")));
                    }
                    let value = map.next_value::<Value>()?;
                    out.insert(key, value);
                }
                Ok(Members(out))
            }
        }
        d.deserialize_map(V)
    }
}

/// A content block from its members: `type` picks the variant, the others are read as it.
fn content_of(mut members: Map<String, Value>) -> Result<Content, serde_json::Error> {
    let kind = match members.remove("type") {
        Some(Value::String(kind)) => kind,
        Some(_) => {
            return Err(de::Error::custom(
                "a content block's `type` must be a string",
            ));
        }
        None => return Err(de::Error::missing_field("type")),
    };
    let rest = Value::Object(members);
    match kind.as_str() {
        "text" => TextContent::deserialize(rest).map(Content::Text),
        "image" => MediaContent::deserialize(rest).map(Content::Image),
        "audio" => MediaContent::deserialize(rest).map(Content::Audio),
        "resource_link" => Resource::deserialize(rest)
            .map(|resource| Content::ResourceLink(ResourceLink { resource })),
        "resource" => EmbeddedResource::deserialize(rest).map(Content::Resource),
        other => Err(de::Error::unknown_variant(other, CONTENT_KINDS)),
    }
}

impl<'de> Deserialize<'de> for Content {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let Members(members) = Members::deserialize(d)?;
        content_of(members).map_err(de::Error::custom)
    }
}

impl<'de> Deserialize<'de> for SamplingBlock {
    /// A content block when it reads as one; any other object (`tool_use`, `tool_result`, a
    /// kind this revision does not know, a malformed block) is kept as JSON.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let Members(members) = Members::deserialize(d)?;
        let known = members
            .get("type")
            .and_then(Value::as_str)
            .is_some_and(|kind| CONTENT_KINDS.contains(&kind));
        if known && let Ok(content) = content_of(members.clone()) {
            return Ok(SamplingBlock::Content(content));
        }
        Ok(SamplingBlock::Other(members))
    }
}

impl<'de> Deserialize<'de> for SamplingContent {
    /// One block (an object) or several (an array), told apart by the value's first token.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = SamplingContent;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a content block or an array of content blocks")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<SamplingContent, A::Error> {
                SamplingBlock::deserialize(de::value::MapAccessDeserializer::new(map))
                    .map(SamplingContent::One)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<SamplingContent, A::Error> {
                Vec::<SamplingBlock>::deserialize(de::value::SeqAccessDeserializer::new(seq))
                    .map(SamplingContent::Many)
            }
        }
        d.deserialize_any(V)
    }
}

/// The members of [`ResourceContents`] as sent: `text` or `blob` beside the others.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ContentsWire {
    uri: String,
    #[serde(default)]
    mime_type: Option<String>,
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    blob: Option<String>,
    #[serde(rename = "_meta", default)]
    meta: Option<Map<String, Value>>,
}

impl<'de> Deserialize<'de> for ResourceContents {
    /// Text contents (`text`) or a base64 blob (`blob`); `text` is read when both are sent. An
    /// object only, as the derived reader with its `flatten`ed body took (a derived struct alone
    /// would also read an array).
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let wire: ContentsWire = object(d)?;
        let body = match (wire.text, wire.blob) {
            (Some(text), _) => ResourceBody::Text(text),
            (None, Some(blob)) => ResourceBody::Blob(blob),
            (None, None) => {
                return Err(de::Error::custom("resource contents need `text` or `blob`"));
            }
        };
        Ok(ResourceContents {
            uri: wire.uri,
            mime_type: wire.mime_type,
            body,
            meta: wire.meta,
        })
    }
}

/// The members of a [`CompletionReference`] as sent.
#[derive(Deserialize)]
struct ReferenceWire {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    uri: Option<String>,
}

impl<'de> Deserialize<'de> for CompletionReference {
    /// `ref/prompt` with `name` (and `title`), or `ref/resource` with `uri`.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let wire = ReferenceWire::deserialize(d)?;
        match wire.kind.as_str() {
            "ref/prompt" => Ok(CompletionReference::Prompt {
                name: wire.name.ok_or_else(|| de::Error::missing_field("name"))?,
                title: wire.title,
            }),
            "ref/resource" => Ok(CompletionReference::Resource {
                uri: wire.uri.ok_or_else(|| de::Error::missing_field("uri"))?,
            }),
            other => Err(de::Error::unknown_variant(
                other,
                &["ref/prompt", "ref/resource"],
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read<T: for<'de> Deserialize<'de>>(text: &str) -> Result<T, String> {
        serde_json::from_str(text).map_err(|e| e.to_string())
    }

    /// Each kind of block, its `type` anywhere among its members.
    #[test]
    fn content_blocks_read_each_kind() {
        let text: Content = read(r#"{"text":"hi","type":"text"}"#).unwrap();
        assert_eq!(text, Content::text("hi"));
        let image: Content =
            read(r#"{"type":"image","data":"AA==","mimeType":"image/png"}"#).unwrap();
        assert_eq!(image, Content::image("AA==", "image/png"));
        let audio: Content =
            read(r#"{"type":"audio","data":"AA==","mimeType":"audio/wav"}"#).unwrap();
        assert_eq!(audio, Content::audio("AA==", "audio/wav"));
        let link: Content = read(r#"{"type":"resource_link","uri":"file:///a","name":"a","icons":[{"src":"https://x/i.png"}]}"#).unwrap();
        let Content::ResourceLink(link) = link else {
            panic!("{link:?}")
        };
        assert_eq!(
            link.resource.icons.as_ref().unwrap()[0].src,
            "https://x/i.png"
        );
        let embedded: Content = read(r#"{"type":"resource","resource":{"uri":"file:///b","blob":"AAEC"},"annotations":{"priority":0.5}}"#).unwrap();
        assert_eq!(
            serde_json::to_value(&embedded).unwrap(),
            json!({"type": "resource", "resource": {"uri": "file:///b", "blob": "AAEC"}, "annotations": {"priority": 0.5}})
        );
        // What is written reads back the same.
        for block in [text, image, Content::ResourceLink(link), embedded] {
            let again: Content =
                serde_json::from_value(serde_json::to_value(&block).unwrap()).unwrap();
            assert_eq!(again, block);
        }
    }

    /// Malformed blocks are refused with serde's usual wording.
    #[test]
    fn content_blocks_refuse_what_is_malformed() {
        let e = read::<Content>(r#"{"text":"hi"}"#).unwrap_err();
        assert!(e.starts_with("missing field `type`"), "{e}");
        let e = read::<Content>(r#"{"type":"video","data":""}"#).unwrap_err();
        assert!(
            e.starts_with("unknown variant `video`, expected one of `text`"),
            "{e}"
        );
        let e = read::<Content>(r#"{"type":"text"}"#).unwrap_err();
        assert!(e.starts_with("missing field `text`"), "{e}");
        let e = read::<Content>(r#"{"type":"text","text":"a","text":"b"}"#).unwrap_err();
        assert!(e.starts_with("duplicate field `text`"), "{e}");
        let e = read::<Content>(r#"{"type":1,"text":"a"}"#).unwrap_err();
        assert!(e.contains("must be a string"), "{e}");
        assert!(read::<Content>(r#"["text","a"]"#).is_err());
    }

    /// One block or an array; tool-loop blocks and malformed ones kept as JSON.
    #[test]
    fn sampling_content_is_one_block_or_many() {
        let one: SamplingContent = read(r#"{"type":"text","text":"hi"}"#).unwrap();
        assert_eq!(one.text(), "hi");
        let many: SamplingContent = read(
            r#"[{"type":"text","text":"a"},{"type":"tool_use","id":"1","name":"f","input":{}},{"type":"text"}]"#,
        )
        .unwrap();
        let SamplingContent::Many(blocks) = many else {
            panic!("{many:?}")
        };
        assert!(matches!(&blocks[0], SamplingBlock::Content(Content::Text(t)) if t.text == "a"));
        assert!(matches!(&blocks[1], SamplingBlock::Other(m) if m["name"] == "f"));
        assert!(matches!(&blocks[2], SamplingBlock::Other(m) if m.len() == 1));
        assert!(read::<SamplingContent>(r#""hi""#).is_err());
        assert!(read::<SamplingContent>(r#"[1]"#).is_err());
    }

    /// `text` or `blob`, and neither is refused.
    #[test]
    fn resource_contents_have_text_or_blob() {
        let c: ResourceContents =
            read(r#"{"uri":"a://b","mimeType":"text/plain","text":"x"}"#).unwrap();
        assert_eq!(
            c,
            ResourceContents::text("a://b", "x").mime_type("text/plain")
        );
        let b: ResourceContents = read(r#"{"blob":"AAEC","uri":"a://b"}"#).unwrap();
        assert_eq!(b, ResourceContents::blob("a://b", &[0u8, 1, 2]));
        let e = read::<ResourceContents>(r#"{"uri":"a://b"}"#).unwrap_err();
        assert!(e.contains("`text` or `blob`"), "{e}");
        assert!(
            read::<ResourceContents>(r#"{"text":"x"}"#)
                .unwrap_err()
                .starts_with("missing field `uri`")
        );
        assert!(read::<ResourceContents>(r#"["a://b", null, "x"]"#).is_err());
    }

    /// Both kinds of reference, and what each needs.
    #[test]
    fn completion_references_read_both_kinds() {
        let p: CompletionReference = read(r#"{"name":"greet","type":"ref/prompt"}"#).unwrap();
        assert_eq!(
            p,
            CompletionReference::Prompt {
                name: "greet".into(),
                title: None
            }
        );
        let r: CompletionReference =
            read(r#"{"type":"ref/resource","uri":"file:///{p}"}"#).unwrap();
        assert_eq!(
            r,
            CompletionReference::Resource {
                uri: "file:///{p}".into()
            }
        );
        let e = read::<CompletionReference>(r#"{"type":"ref/prompt"}"#).unwrap_err();
        assert!(e.starts_with("missing field `name`"), "{e}");
        let e = read::<CompletionReference>(r#"{"type":"ref/tool","name":"x"}"#).unwrap_err();
        assert!(e.starts_with("unknown variant `ref/tool`"), "{e}");
        let e = read::<CompletionReference>(r#"{"name":"x"}"#).unwrap_err();
        assert!(e.starts_with("missing field `type`"), "{e}");
    }
}
