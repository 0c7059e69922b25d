//! The apps server: a board and a chart, each a tool linked to its view.

use mcp_runtime::prelude::*;
use mcp_runtime::{Csp, ServerBuilder, UiResource};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::sync::{OnceLock, RwLock};

/// The board's view.
pub const BOARD_VIEW: &str = "ui://board/board.html";
/// The chart's view.
pub const CHART_VIEW: &str = "ui://chart/chart.html";

/// A column of the board.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Column {
    /// Not started.
    Todo,
    /// In progress.
    Doing,
    /// Finished.
    Done,
}

impl Column {
    const ALL: [Column; 3] = [Column::Todo, Column::Doing, Column::Done];
}

/// A card.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Card {
    /// Its number.
    pub id: u32,
    /// What it says.
    pub title: String,
    /// Where it is.
    pub column: Column,
}

/// The board as a view (and a client) reads it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct BoardView {
    /// The cards, in the order they were added.
    pub cards: Vec<Card>,
}

/// The board: the server's shared state.
pub struct Board {
    cards: RwLock<Vec<Card>>,
}

impl Default for Board {
    fn default() -> Self {
        let card = |id, title: &str, column| Card {
            id,
            title: title.to_owned(),
            column,
        };
        Board {
            cards: RwLock::new(vec![
                card(1, "Write the release notes", Column::Todo),
                card(2, "Review the board view", Column::Doing),
                card(3, "Set up the chart", Column::Done),
            ]),
        }
    }
}

impl Board {
    fn view(&self) -> Structured<BoardView> {
        let cards = self.cards.read().map(|c| c.clone()).unwrap_or_default();
        let mut text = String::new();
        for column in Column::ALL {
            let titles: Vec<String> = cards
                .iter()
                .filter(|c| c.column == column)
                .map(|c| format!("#{} {}", c.id, c.title))
                .collect();
            let list = if titles.is_empty() {
                "(empty)".to_owned()
            } else {
                titles.join(", ")
            };
            text.push_str(&format!("{column:?}: {list}\n"));
        }
        Structured::new(BoardView { cards }).text(text.trim_end())
    }
}

#[handlers]
impl Board {
    /// Shows the team's board: its cards in the columns todo, doing and done.
    #[tool(ui = "ui://board/board.html")]
    fn show_board(&self) -> Structured<BoardView> {
        self.view()
    }

    /// Adds a card to the todo column of the board.
    #[tool(ui = "ui://board/board.html")]
    fn add_card(
        &self,
        /// What the card says.
        title: String,
    ) -> Result<Structured<BoardView>, McpError> {
        let title = title.trim();
        if title.is_empty() || title.chars().count() > 200 {
            return Err(McpError::invalid_params(
                "a card's title has 1 to 200 characters",
            ));
        }
        if let Ok(mut cards) = self.cards.write() {
            if cards.len() >= 100 {
                return Err(McpError::invalid_params(
                    "the board holds 100 cards at most",
                ));
            }
            let id = cards.iter().map(|c| c.id).max().unwrap_or(0) + 1;
            cards.push(Card {
                id,
                title: title.to_owned(),
                column: Column::Todo,
            });
        }
        Ok(self.view())
    }

    /// Moves a card to another column (the board's view calls it when a card is moved).
    #[tool(ui = "ui://board/board.html", visibility = ["app"])]
    fn move_card(
        &self,
        /// The card's number.
        id: u32,
        /// The column it goes to.
        to: Column,
    ) -> Result<Structured<BoardView>, McpError> {
        let moved = self.cards.write().ok().and_then(|mut cards| {
            let card = cards.iter_mut().find(|c| c.id == id)?;
            card.column = to;
            Some(())
        });
        match moved {
            Some(()) => Ok(self.view()),
            None => Err(McpError::invalid_params(format!("there is no card #{id}"))),
        }
    }
}

/// A chart's data.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ChartData {
    /// What each bar is.
    pub labels: Vec<String>,
    /// How long each bar is.
    pub values: Vec<f64>,
}

/// Draws a bar chart of labelled values (at most 50 bars).
#[tool(ui = "ui://chart/chart.html")]
pub fn chart(
    /// What each bar is.
    labels: Vec<String>,
    /// How long each bar is (one per label, finite).
    values: Vec<f64>,
) -> Result<Structured<ChartData>, McpError> {
    if labels.len() != values.len() || labels.is_empty() || labels.len() > 50 {
        return Err(McpError::invalid_params(
            "give 1 to 50 labels and as many values",
        ));
    }
    if values.iter().any(|v| !v.is_finite()) {
        return Err(McpError::invalid_params("every value is a finite number"));
    }
    let text: Vec<String> = labels
        .iter()
        .zip(&values)
        .map(|(l, v)| format!("{l}: {v}"))
        .collect();
    Ok(Structured::new(ChartData { labels, values }).text(text.join("\n")))
}

// Not a view: the board's view reads it when asked (a read a careful host sends only with the
// person's grant).
/// How the board works: its columns and what moves a card.
#[resource(
    "board://guide",
    title = "How the board works",
    mime_type = "text/markdown"
)]
pub fn guide() -> String {
    "# The board\n\nCards go from todo to doing to done. `add_card` puts a new card in todo; \
     the view's arrows move a card with `move_card`, which only the view calls."
        .to_owned()
}

/// The board's view: its page (`board.html`, written with the ext-apps `App` class) with the
/// SDK's self-contained bundle inlined, read from the npm package when first asked for.
fn board_view() -> UiResource {
    UiResource::new(BOARD_VIEW, "board")
        .title("Board")
        .description("The team's board: move cards between columns, add cards")
        .prefers_border(true)
        .render(|_read| async {
            let bundle = app_bundle()?;
            Ok(include_str!("board.html").replace("/*EXT_APPS_BUNDLE*/", bundle))
        })
}

/// The chart's view, embedded at compile time (it speaks the raw protocol: no SDK).
fn chart_view() -> UiResource {
    UiResource::new(CHART_VIEW, "chart")
        .title("Chart")
        .description("A bar chart of a chart call's values")
        .html(include_str!("chart.html"))
        .csp(Csp::new())
}

/// Where the ext-apps package's self-contained `App` bundle is (`npm ci --prefix
/// examples/apps`), unless `MCP_EXT_APPS_BUNDLE` names another.
fn bundle_path() -> std::path::PathBuf {
    match std::env::var_os("MCP_EXT_APPS_BUNDLE") {
        Some(path) => path.into(),
        None => concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/examples/apps/node_modules/@modelcontextprotocol/ext-apps/dist/src/app-with-deps.js"
        )
        .into(),
    }
}

/// The ext-apps bundle as a script of the page: its closing `export{a as B,…}` becomes
/// `globalThis.ExtApps={B:a,…}`, so that the page's own module reads `ExtApps.App`.
fn app_bundle() -> Result<&'static str, McpError> {
    static BUNDLE: OnceLock<String> = OnceLock::new();
    if let Some(bundle) = BUNDLE.get() {
        return Ok(bundle);
    }
    let path = bundle_path();
    let source = std::fs::read_to_string(&path).map_err(|e| {
        McpError::internal(format!(
            "the board's view needs the ext-apps bundle at {} ({e}): run `npm ci --prefix \
             examples/apps`",
            path.display()
        ))
    })?;
    let script = as_global(&source).ok_or_else(|| {
        McpError::internal(format!(
            "{} does not end in one `export{{…}}`: not the ext-apps bundle this example knows",
            path.display()
        ))
    })?;
    Ok(BUNDLE.get_or_init(|| script))
}

/// `source` with its last statement, `export{a as B,c}`, turned into `globalThis.ExtApps={…}`.
fn as_global(source: &str) -> Option<String> {
    let at = source.rfind("export{")?;
    let close = at + source[at..].find('}')?;
    if source[close + 1..].trim().trim_end_matches(';').trim() != "" || source.contains("</script")
    {
        return None;
    }
    let names: Vec<String> = source[at + "export{".len()..close]
        .split(',')
        .map(|item| match item.split_once(" as ") {
            Some((local, exported)) => format!("{}:{}", exported.trim(), local.trim()),
            None => item.trim().to_owned(),
        })
        .collect();
    Some(format!(
        "{}globalThis.ExtApps={{{}}};",
        &source[..at],
        names.join(",")
    ))
}

/// The apps server.
pub fn build() -> Result<Server, BuildError> {
    builder().build()
}

/// The apps server's builder.
pub fn builder() -> ServerBuilder {
    Server::builder()
        .name("apps")
        .version("1.0.0")
        .instructions("A team board and a chart, each with an interactive view for hosts that render MCP Apps.")
        .handlers(Board::default())
        .tool(chart {})
        .resource(board_view())
        .resource(chart_view())
        .resource(guide {})
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_bundle_s_exports_become_a_global() {
        let out = super::as_global("const a=1;function b(){}export{a as App,b};").unwrap();
        assert_eq!(out, "const a=1;function b(){}globalThis.ExtApps={App:a,b};");
        assert!(super::as_global("export{a};more()").is_none());
    }
}
