//! Tool definitions as Anthropic takes them (pi's `convertTools`).

use clawloop_core::ToolDefinition;
use serde_json::{Map, Value, json};

use super::claude_code::to_claude_code_name;

/// `{name, description, input_schema}` per tool. Only the schema's `properties` and
/// `required` are kept (pi drops every other top-level keyword); names are put in Claude Code
/// casing for OAuth tokens.
pub fn convert_tools(tools: &[ToolDefinition], oauth: bool) -> Vec<Value> {
    tools
        .iter()
        .map(|tool| {
            let properties = tool
                .parameters
                .get("properties")
                .filter(|v| !v.is_null())
                .cloned()
                .unwrap_or_else(|| Value::Object(Map::new()));
            let required = tool
                .parameters
                .get("required")
                .filter(|v| !v.is_null())
                .cloned()
                .unwrap_or_else(|| Value::Array(Vec::new()));
            let name = if oauth {
                to_claude_code_name(&tool.name)
            } else {
                tool.name.clone()
            };
            json!({
                "name": name,
                "description": tool.description,
                "input_schema": {"type": "object", "properties": properties, "required": required},
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn schema_is_reduced_to_properties_and_required() {
        let tools = [
            ToolDefinition {
                name: "read".into(),
                description: "Read a file".into(),
                parameters: json!({"type": "object", "additionalProperties": false,
                    "properties": {"path": {"type": "string"}}, "required": ["path"]}),
            },
            ToolDefinition {
                name: "ping".into(),
                description: "".into(),
                parameters: json!({}),
            },
        ];
        assert_eq!(
            convert_tools(&tools, true),
            vec![
                json!({"name": "Read", "description": "Read a file", "input_schema": {"type": "object",
                    "properties": {"path": {"type": "string"}}, "required": ["path"]}}),
                json!({"name": "ping", "description": "", "input_schema": {"type": "object",
                    "properties": {}, "required": []}}),
            ]
        );
        assert_eq!(convert_tools(&tools, false)[0]["name"], "read");
    }
}
