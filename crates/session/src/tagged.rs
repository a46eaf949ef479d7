//! Tagged structs whose unknown fields are kept: the tag arrives in the flattened `extra` map
//! and is checked and removed there.

use serde::de;
use serde_json::Value;

use clawloop_core::message::JsonObject;

/// Removes the tag key from the fields collected in `extra`, checking its value.
///
/// Serde routes the tag into the flattened map when a tagged struct is read on its own; a
/// missing tag is accepted because the caller has already dispatched on it. `shift_remove`,
/// not `remove`: with `preserve_order` the latter moves the last key into the hole and would
/// reorder the unknown fields written back.
pub(crate) fn strip_tag<E: de::Error>(
    mut map: JsonObject,
    key: &str,
    expected: &str,
) -> Result<JsonObject, E> {
    match map.shift_remove(key) {
        None => Ok(map),
        Some(Value::String(found)) if found == expected => Ok(map),
        Some(other) => Err(E::custom(format!(
            "expected {key} {expected:?}, found {other}"
        ))),
    }
}

/// Defines a `deserialize_with` function for the `extra` map of one struct tagged by `type`.
macro_rules! extra_without_type {
    ($name:ident, $value:literal) => {
        fn $name<'de, D: serde::Deserializer<'de>>(
            d: D,
        ) -> Result<clawloop_core::message::JsonObject, D::Error> {
            use serde::Deserialize;
            $crate::tagged::strip_tag(
                clawloop_core::message::JsonObject::deserialize(d)?,
                "type",
                $value,
            )
        }
    };
}

pub(crate) use extra_without_type;

/// Reads a present optional field as `Some`, even when it is `null`, so `"details":null`
/// survives a round trip (plain `Option` would turn it into an absent field).
pub(crate) fn present<'de, D: de::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    use serde::Deserialize;
    Value::deserialize(d).map(Some)
}
