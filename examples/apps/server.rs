//! The apps server: a board and a chart, each a tool linked to its view.

#[path = "notes.rs"]
pub mod notes;

use mcp_runtime::prelude::*;
use notes::Notes;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::sync::RwLock;

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

    // Views with no HTML: each generated from its tool's result type when the server is built.
    /// Lists the board's cards as a table (a view generated from the result's schema).
    #[tool(view = "table", annotations(read_only = true))]
    fn list_cards(&self) -> Structured<BoardView> {
        self.view()
    }

    /// Counts the cards in each column, drawn as a bar chart (a generated view).
    #[tool(view = "chart", annotations(read_only = true))]
    fn card_counts(&self) -> Structured<Counts> {
        let cards = self.cards.read().map(|c| c.clone()).unwrap_or_default();
        let columns: Vec<ColumnCount> = Column::ALL
            .into_iter()
            .map(|column| ColumnCount {
                column,
                cards: cards.iter().filter(|c| c.column == column).count() as u32,
            })
            .collect();
        let text: Vec<String> = columns
            .iter()
            .map(|c| format!("{:?}: {}", c.column, c.cards))
            .collect();
        Structured::new(Counts { columns }).text(text.join("\n"))
    }

    /// Shows one card's fields (a generated form view).
    #[tool(view = "form", annotations(read_only = true))]
    fn get_card(
        &self,
        /// The card's number.
        id: u32,
    ) -> Result<Structured<Card>, McpError> {
        let cards = self.cards.read().map(|c| c.clone()).unwrap_or_default();
        let card = cards.into_iter().find(|c| c.id == id);
        let card =
            card.ok_or_else(|| McpError::invalid_params(format!("there is no card #{id}")))?;
        let text = format!("#{} {} ({:?})", card.id, card.title, card.column);
        Ok(Structured::new(card).text(text))
    }
}

/// How many cards a column holds.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ColumnCount {
    /// The column.
    pub column: Column,
    /// How many cards it holds.
    #[schemars(title = "Cards")]
    pub cards: u32,
}

/// The board's columns, counted.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Counts {
    /// One bar per column.
    pub columns: Vec<ColumnCount>,
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
/// official SDK embedded when the server is compiled (`app_sdk!`), or imported from `sdk_url`.
fn board_view(sdk: AppSdk) -> UiResource {
    UiResource::new(BOARD_VIEW, "board")
        .title("Board")
        .description("The team's board: move cards between columns, add cards")
        .prefers_border(true)
        .html(include_str!("board.html"))
        .app_sdk(sdk)
}

/// The chart's view, embedded at compile time (it speaks the raw protocol: no SDK).
fn chart_view() -> UiResource {
    UiResource::new(CHART_VIEW, "chart")
        .title("Chart")
        .description("A bar chart of a chart call's values")
        .html(include_str!("chart.html"))
        .csp(Csp::new())
}

/// The official MCP Apps SDK the board's and the notes' views use: embedded in the binary
/// (`npm ci --prefix examples/apps` before building), or, given a URL, imported from there (its
/// origin joins the views' CSP).
pub fn app_sdk(url: Option<&str>) -> AppSdk {
    match url {
        Some(url) => AppSdk::url(url),
        None => mcp_runtime::app_sdk!("node_modules"),
    }
}

/// The apps server, its views' SDK embedded.
#[allow(dead_code)] // `tests/suite/apps.rs` builds it; `main` takes `--app-sdk-url`.
pub fn build() -> Result<Server, BuildError> {
    builder(app_sdk(None)).build()
}

/// The apps server's builder, its views using `sdk`.
pub fn builder(sdk: AppSdk) -> ServerBuilder {
    Server::builder()
        .name("apps")
        .version("1.0.0")
        .instructions("A team board, a chart and the team's notes, each with a view for hosts that render MCP Apps.")
        .handlers(Board::default())
        .tool(chart {})
        .resource(board_view(sdk.clone()))
        .resource(chart_view())
        .resource(guide {})
        .handlers(Notes)
        .resource(notes::search_view(sdk))
}
