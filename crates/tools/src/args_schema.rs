//! Schema helpers for the built-in tools' argument structs, on top of the registry's
//! [`schema::generate`](crate::schema::generate), so the advertised schemas read exactly like
//! pi's TypeBox ones (`{type: "object", properties, required}`), and [`parse_args`] to read a
//! call's arguments back into such a struct.
//!
//! An optional number field uses [`js_number`] (a bare `{"type": "number"}`) with
//! `#[serde(default)]` to stay optional; schemars then writes `"default": null`, which pi's
//! schemas do not have, so [`parameters_schema`] drops it.

use clawloop_core::tool::ToolError;
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::de::DeserializeOwned;
use serde_json::Value;

/// The plain parameters schema of `T` without null defaults on its properties.
pub(crate) fn parameters_schema<T: JsonSchema>() -> Value {
    let mut value = crate::schema::generate::<T>();
    if let Some(Value::Object(properties)) = value.get_mut("properties") {
        for property in properties.values_mut() {
            if let Some(property) = property.as_object_mut()
                && property.get("default") == Some(&Value::Null)
            {
                property.shift_remove("default");
            }
        }
    }
    value
}

/// A built-in tool's arguments as its argument struct; a mismatch is
/// [`ToolError::InvalidArguments`].
pub(crate) fn parse_args<T: DeserializeOwned>(args: Value) -> Result<T, ToolError> {
    serde_json::from_value(args).map_err(|err| ToolError::InvalidArguments(err.to_string()))
}

/// A plain JSON number, as TypeBox's `Type.Number()` writes it (schemars would add
/// `"format": "double"` for an `f64`). For `#[schemars(schema_with = "...")]` on optional
/// number fields, which also hides the `null` schemars adds for an `Option`.
pub(crate) fn js_number(_generator: &mut SchemaGenerator) -> Schema {
    json_schema!({ "type": "number" })
}
