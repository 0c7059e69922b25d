//! The Server Card (SEP-2127, a draft; feature `server-card`) and the AI Catalog that points at
//! it. `card`: what a [`ServerCard`](super::ServerCard) says (the checked card
//! [`Server::server_card`](crate::Server::server_card) makes from the server's own info and its
//! `ServerJson` entry, held by the options), and the two documents written from it (the card
//! with the protocol versions the endpoint serves, the catalog's entry). `serve`:
//! their routes, `<endpoint>/server-card` and `/.well-known/ai-catalog.json`, each document
//! written once when the router is made and answered with its `ETag`, `304` on a match, public
//! caching and CORS for any origin; no token, whatever the endpoint asks of MCP requests.

mod card;
mod serve;

pub use card::SERVER_CARD_SCHEMA;
pub(super) use serve::mount;
