//! The shape of every known key, compiled in: what telling unknown keys from known ones needs,
//! without generating the JSON schema at run time.
//!
//! [`super::schema::key_tree`] derives the tree from the config types' schema, which costs
//! about two million instructions — a quarter of a one-shot `clawloop run` — for a check that
//! every command makes at start-up. [`known_key_tree`] rebuilds the same tree (without the
//! descriptions and type names, which only the documentation needs) from [`KNOWN_KEYS`], a
//! table generated from the schema. The test `known_keys_are_generated_from_the_schema`
//! compares the two; when they differ it rewrites this file's table and fails, so the table
//! cannot drift from the types.

use super::schema::{KeyKind, KeyNode};

/// What a key holds, as far as the key check goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// A value.
    Value,
    /// A table of known keys (the entries one level deeper that follow it).
    Table,
    /// A table keyed by ids (its one entry, `<id>`, follows it).
    Map,
    /// An array of tables (its one entry, `[]`, follows it).
    List,
    /// A table whose keys are free-form.
    FreeForm,
}

/// Every key below the root in depth-first declaration order: its depth (0 for the top-level
/// keys), its name (`<id>` for a map's entry, `[]` for a list's) and its shape.
#[rustfmt::skip]
pub static KNOWN_KEYS: &[(u8, &str, Shape)] = &[
    // @generated: start
    (0, "agents", Shape::Table),
        (1, "defaults", Shape::Table),
            (2, "thinkingDefault", Shape::Value),
            (2, "timeoutSeconds", Shape::Value),
            (2, "maxConcurrent", Shape::Value),
            (2, "maxToolRounds", Shape::Value),
            (2, "contextTokens", Shape::Value),
            (2, "model", Shape::Table),
                (3, "primary", Shape::Value),
                (3, "fallbacks", Shape::Value),
            (2, "llm", Shape::Table),
                (3, "idleTimeoutSeconds", Shape::Value),
            (2, "compaction", Shape::Table),
                (3, "enabled", Shape::Value),
                (3, "reserveTokens", Shape::Value),
                (3, "keepRecentTokens", Shape::Value),
                (3, "reserveTokensFloor", Shape::Value),
                (3, "timeoutSeconds", Shape::Value),
                (3, "notifyUser", Shape::Value),
            (2, "blockStreaming", Shape::Table),
                (3, "enabled", Shape::Value),
                (3, "break", Shape::Value),
                (3, "minChars", Shape::Value),
                (3, "maxChars", Shape::Value),
                (3, "breakPreference", Shape::Value),
            (2, "retry", Shape::Table),
                (3, "transientHttpRetryDelayMs", Shape::Value),
            (2, "contextPruning", Shape::Table),
                (3, "mode", Shape::Value),
            (2, "session", Shape::Table),
                (3, "resetOnOverflow", Shape::Value),
            (2, "tools", Shape::Table),
                (3, "allow", Shape::Value),
                (3, "deny", Shape::Value),
    (0, "models", Shape::Table),
        (1, "providers", Shape::Map),
            (2, "<id>", Shape::Table),
                (3, "api", Shape::Value),
                (3, "baseUrl", Shape::Value),
                (3, "apiKey", Shape::Value),
                (3, "headers", Shape::FreeForm),
                (3, "compat", Shape::FreeForm),
                (3, "models", Shape::List),
                    (4, "[]", Shape::Table),
                        (5, "id", Shape::Value),
                        (5, "name", Shape::Value),
                        (5, "api", Shape::Value),
                        (5, "baseUrl", Shape::Value),
                        (5, "contextWindow", Shape::Value),
                        (5, "contextTokens", Shape::Value),
                        (5, "maxTokens", Shape::Value),
                        (5, "reasoning", Shape::Value),
                        (5, "input", Shape::Value),
                        (5, "cost", Shape::Table),
                            (6, "input", Shape::Value),
                            (6, "output", Shape::Value),
                            (6, "cacheRead", Shape::Value),
                            (6, "cacheWrite", Shape::Value),
                        (5, "headers", Shape::FreeForm),
                        (5, "compat", Shape::FreeForm),
                        (5, "toolChoice", Shape::FreeForm),
    (0, "cliBackends", Shape::Map),
        (1, "<id>", Shape::FreeForm),
    (0, "auth", Shape::Table),
        (1, "order", Shape::FreeForm),
        (1, "profiles", Shape::Map),
            (2, "<id>", Shape::Table),
                (3, "provider", Shape::Value),
                (3, "mode", Shape::Value),
                (3, "email", Shape::Value),
                (3, "displayName", Shape::Value),
        (1, "cooldowns", Shape::Table),
            (2, "scheduleMs", Shape::Value),
            (2, "billingBackoffHours", Shape::Value),
            (2, "billingBackoffHoursByProvider", Shape::FreeForm),
            (2, "billingMaxHours", Shape::Value),
            (2, "authPermanentBackoffMinutes", Shape::Value),
            (2, "authPermanentMaxMinutes", Shape::Value),
            (2, "failureWindowHours", Shape::Value),
            (2, "rateLimitedProfileRotations", Shape::Value),
            (2, "overloadedProfileRotations", Shape::Value),
            (2, "overloadedBackoffMs", Shape::Value),
    (0, "logging", Shape::Table),
        (1, "level", Shape::Value),
    (0, "sandbox", Shape::Table),
        (1, "mode", Shape::Value),
        (1, "network", Shape::Value),
        (1, "writableRoots", Shape::Value),
        (1, "envPassthrough", Shape::Value),
        (1, "approval", Shape::Value),
    // @generated: end
];

/// The tree of every known key, rooted at the whole configuration, from [`KNOWN_KEYS`]:
/// the same tree as [`super::schema::key_tree`] without descriptions and type names.
pub fn known_key_tree() -> KeyNode {
    let mut at = 0;
    KeyNode {
        description: String::new(),
        kind: KeyKind::Table(children(KNOWN_KEYS, &mut at, 0)),
    }
}

/// The entries of depth `depth` from `*at` on, each with its descendants; `*at` ends at the
/// first entry that is shallower.
fn children(keys: &[(u8, &str, Shape)], at: &mut usize, depth: u8) -> Vec<(String, KeyNode)> {
    let mut out = Vec::new();
    while let Some(&(level, name, shape)) = keys.get(*at) {
        if level < depth {
            break;
        }
        *at += 1;
        if level > depth {
            // A row deeper than its parent's children is never generated (the shape test
            // compares the rebuilt tree with the schema's); skipped.
            continue;
        }
        let entry = |at: &mut usize| {
            children(keys, at, depth + 1)
                .into_iter()
                .next()
                .map(|(_, node)| Box::new(node))
        };
        let kind = match shape {
            Shape::Value => KeyKind::Value { ty: String::new() },
            Shape::FreeForm => KeyKind::FreeForm,
            Shape::Table => KeyKind::Table(children(keys, at, depth + 1)),
            Shape::Map => entry(at).map_or(KeyKind::FreeForm, KeyKind::Map),
            Shape::List => entry(at).map_or(KeyKind::FreeForm, KeyKind::List),
        };
        out.push((
            name.to_owned(),
            KeyNode {
                description: String::new(),
                kind,
            },
        ));
    }
    out
}

/// The table's rows for `tree` (the generator of [`KNOWN_KEYS`]).
#[cfg(test)]
fn render_known_keys(tree: &KeyNode) -> String {
    let mut out = String::new();
    if let KeyKind::Table(keys) = &tree.kind {
        for (name, node) in keys {
            render(name, node, 0, &mut out);
        }
    }
    out
}

#[cfg(test)]
fn render(name: &str, node: &KeyNode, depth: u8, out: &mut String) {
    let shape = match &node.kind {
        KeyKind::Value { .. } => "Value",
        KeyKind::Table(_) => "Table",
        KeyKind::Map(_) => "Map",
        KeyKind::List(_) => "List",
        KeyKind::FreeForm => "FreeForm",
    };
    let indent = "    ".repeat(usize::from(depth) + 1);
    out.push_str(&format!("{indent}({depth}, {name:?}, Shape::{shape}),\n"));
    match &node.kind {
        KeyKind::Table(keys) => {
            for (child, node) in keys {
                render(child, node, depth + 1, out);
            }
        }
        KeyKind::Map(entry) => render("<id>", entry, depth + 1, out),
        KeyKind::List(entry) => render("[]", entry, depth + 1, out),
        KeyKind::Value { .. } | KeyKind::FreeForm => {}
    }
}

/// `tree` without descriptions and type names: what [`known_key_tree`] rebuilds.
#[cfg(test)]
fn shape_of(tree: &KeyNode) -> KeyNode {
    let kind = match &tree.kind {
        KeyKind::Value { .. } => KeyKind::Value { ty: String::new() },
        KeyKind::FreeForm => KeyKind::FreeForm,
        KeyKind::Table(keys) => KeyKind::Table(
            keys.iter()
                .map(|(name, node)| (name.clone(), shape_of(node)))
                .collect(),
        ),
        KeyKind::Map(entry) => KeyKind::Map(Box::new(shape_of(entry))),
        KeyKind::List(entry) => KeyKind::List(Box::new(shape_of(entry))),
    };
    KeyNode {
        description: String::new(),
        kind,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::schema::key_tree;
    use pretty_assertions::assert_eq;

    const START: &str = "    // @generated: start\n";
    const END: &str = "    // @generated: end\n";

    /// The compiled-in table is the schema's: when it is not, this file's table is rewritten
    /// from the schema and the test fails (run it again to see it pass, and commit the file).
    #[test]
    fn known_keys_are_generated_from_the_schema() {
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/config/known_keys.rs");
        let source = std::fs::read_to_string(&path).unwrap();
        let (head, rest) = source.split_once(START).unwrap();
        let (table, tail) = rest.split_once(END).unwrap();
        let wanted = render_known_keys(&key_tree());
        if table != wanted {
            std::fs::write(&path, format!("{head}{START}{wanted}{END}{tail}")).unwrap();
            panic!(
                "KNOWN_KEYS was out of date with the config types and {} was rewritten; \
                 run the tests again and commit it",
                path.display()
            );
        }
    }

    #[test]
    fn the_compiled_tree_is_the_schema_tree_in_shape() {
        assert_eq!(known_key_tree(), shape_of(&key_tree()));
    }

    #[test]
    fn a_table_map_and_list_are_rebuilt_from_their_rows() {
        let keys = [
            (0, "a", Shape::Table),
            (1, "b", Shape::Value),
            (1, "m", Shape::Map),
            (2, "<id>", Shape::Table),
            (3, "l", Shape::List),
            (4, "[]", Shape::Table),
            (5, "x", Shape::FreeForm),
            (0, "c", Shape::Value),
        ];
        let mut at = 0;
        let leaf = |kind| KeyNode {
            description: String::new(),
            kind,
        };
        let value = || leaf(KeyKind::Value { ty: String::new() });
        let list = leaf(KeyKind::List(Box::new(leaf(KeyKind::Table(vec![(
            "x".to_owned(),
            leaf(KeyKind::FreeForm),
        )])))));
        let map = leaf(KeyKind::Map(Box::new(leaf(KeyKind::Table(vec![(
            "l".to_owned(),
            list,
        )])))));
        assert_eq!(
            children(&keys, &mut at, 0),
            vec![
                (
                    "a".to_owned(),
                    leaf(KeyKind::Table(vec![
                        ("b".to_owned(), value()),
                        ("m".to_owned(), map)
                    ]))
                ),
                ("c".to_owned(), value()),
            ]
        );
        assert_eq!(at, keys.len());
    }
}
