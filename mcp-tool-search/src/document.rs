//! [`ToolDocument`]: what the index knows of one tool — the fields a model's query may hit.

use serde_json::Value;

/// One tool as the index sees it: its server, its names, its text and its parameters.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ToolDocument {
    /// The server's configured name (`github`).
    pub server: String,
    /// The tool's name on the server (`search_repositories`).
    pub tool: String,
    /// The tool's title, when the server gives one.
    pub title: Option<String>,
    /// The tool's description.
    pub description: String,
    /// Its parameters: each name and description, from the input schema's properties.
    pub parameters: Vec<Parameter>,
    /// The name a model knows it by, when it is not the tool's own (`mcp_github_create_issue`):
    /// a `/…/` query matches it as it matches the tool's name.
    pub exposed_name: Option<String>,
}

/// A parameter of a tool, as its input schema names and describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Parameter {
    /// The property's name (`query`).
    pub name: String,
    /// Its description, when the schema has one.
    pub description: Option<String>,
}

impl ToolDocument {
    /// A document of `tool` on `server` with `description`, no title and no parameters.
    pub fn new(
        server: impl Into<String>,
        tool: impl Into<String>,
        description: impl Into<String>,
    ) -> Self {
        Self {
            server: server.into(),
            tool: tool.into(),
            title: None,
            description: description.into(),
            parameters: Vec::new(),
            exposed_name: None,
        }
    }

    /// With the name a model knows it by (see [`exposed_name`](Self::exposed_name)).
    #[must_use]
    pub fn exposed_name(mut self, name: impl Into<String>) -> Self {
        self.exposed_name = Some(name.into());
        self
    }

    /// With this title.
    #[must_use]
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// With the parameters an input schema declares: every property of `properties` (and of
    /// nested object properties, one level down), with its `description`.
    #[must_use]
    pub fn parameters_from_schema(mut self, schema: &Value) -> Self {
        self.parameters = schema_parameters(schema, 2);
        self
    }

    /// With these parameters.
    #[must_use]
    pub fn parameters(mut self, parameters: Vec<Parameter>) -> Self {
        self.parameters = parameters;
        self
    }
}

impl Parameter {
    /// A parameter named `name`.
    pub fn new(name: impl Into<String>, description: Option<String>) -> Self {
        Self {
            name: name.into(),
            description,
        }
    }
}

/// The properties of an object schema, `depth` levels down (a tool's arguments are rarely
/// deeper than an object of objects).
fn schema_parameters(schema: &Value, depth: usize) -> Vec<Parameter> {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return Vec::new();
    };
    let mut parameters = Vec::new();
    for (name, property) in properties {
        let description = property
            .get("description")
            .and_then(Value::as_str)
            .map(str::to_owned);
        parameters.push(Parameter::new(name.clone(), description));
        if depth > 1 {
            parameters.extend(schema_parameters(property, depth - 1));
        }
    }
    parameters
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn parameters_come_from_the_schemas_properties_and_one_level_of_objects() {
        let schema = json!({
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "What to look for"},
                "filter": {"type": "object", "properties": {
                    "language": {"type": "string", "description": "A language name"},
                    "deeper": {"type": "object", "properties": {"hidden": {"type": "string"}}}
                }}
            }
        });
        let document = ToolDocument::new("github", "search", "").parameters_from_schema(&schema);
        let names: Vec<&str> = document
            .parameters
            .iter()
            .map(|parameter| parameter.name.as_str())
            .collect();
        assert_eq!(names, ["query", "filter", "language", "deeper"]);
        assert_eq!(
            document.parameters[0].description.as_deref(),
            Some("What to look for")
        );
    }
}
