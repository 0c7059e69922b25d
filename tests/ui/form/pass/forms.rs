//! Elicitation forms: flat fields, attributes, renames, choices.
use mcp_runtime::{ElicitForm, Elicitation, tool};

/// How deep to go.
#[derive(serde::Deserialize, ElicitForm)]
#[serde(rename_all = "kebab-case")]
enum Depth {
    Quick,
    VeryThorough,
    #[form(rename = "other")]
    #[serde(rename = "other")]
    Something,
}

#[derive(serde::Deserialize, ElicitForm)]
#[serde(rename_all = "camelCase")]
struct Review {
    /// The goal.
    #[form(title = "Goal", min_length = 3, max_length = 100)]
    review_goal: String,
    #[form(minimum = 1, maximum = 10)]
    effort: u8,
    #[form(minimum = -1.5)]
    weight: Option<f64>,
    #[form(format = "email")]
    #[serde(rename = "mail")]
    notify: Option<String>,
    depth: Depth,
    urgent: bool,
}

#[tool]
fn review(#[elicit(message = "How?", key = "how")] how: Elicitation<Review>) -> String {
    match how {
        Elicitation::Accepted(r) => r.review_goal,
        _ => String::new(),
    }
}

pub fn main() {
    let schema = <Review as mcp_runtime::__private::ElicitForm>::requested_schema();
    assert_eq!(
        serde_json::Value::Object(schema),
        serde_json::json!({
            "type": "object",
            "properties": {
                "reviewGoal": {"type": "string", "title": "Goal", "description": "The goal.", "minLength": 3, "maxLength": 100},
                "effort": {"type": "integer", "minimum": 1, "maximum": 10},
                "weight": {"type": "number", "minimum": -1.5},
                "mail": {"type": "string", "format": "email"},
                "depth": {"type": "string", "enum": ["quick", "very-thorough", "other"], "description": "How deep to go."},
                "urgent": {"type": "boolean"}
            },
            "required": ["reviewGoal", "effort", "depth", "urgent"]
        })
    );
}
