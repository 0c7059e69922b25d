//! A request whose rounds of client input (`input_required`) are answered from the client's
//! configured answers and retried until it completes.

use super::api::{Client, parse};
use super::error::ClientError;
use crate::mrtr::MAX_ROUNDS;
use crate::protocol::{InputRequests, InputRequiredResult};
use serde_json::{Map, Value};

impl Client {
    /// A request whose `input_required` answers are answered and retried until it completes.
    pub(super) async fn request_with_input(
        &self,
        method: &str,
        params: Value,
    ) -> Result<Value, ClientError> {
        self.request_answering(method, params, false).await
    }

    /// `method`, its rounds of input answered from the configured answers; the tasks extension
    /// declared when `tasks` is.
    pub(super) async fn request_answering(
        &self,
        method: &str,
        mut params: Value,
        tasks: bool,
    ) -> Result<Value, ClientError> {
        for _ in 0..=MAX_ROUNDS {
            let result = match tasks {
                true => self.request_declaring_tasks(method, params.clone()).await?,
                false => self.request(method, params.clone()).await?,
            };
            if result["resultType"] != "input_required" {
                return Ok(result);
            }
            let asked: InputRequiredResult = parse(result)?;
            params["inputResponses"] = self.answer_all(asked.input_requests.as_ref())?;
            params["requestState"] = match asked.request_state {
                Some(state) => Value::String(state),
                None => Value::Null,
            };
        }
        Err(ClientError::Unexpected(format!(
            "`{method}` asked for input more than {MAX_ROUNDS} times"
        )))
    }

    /// The configured answers to `requests`, by key.
    #[inline]
    pub(super) fn answer_all(
        &self,
        requests: Option<&InputRequests>,
    ) -> Result<Value, ClientError> {
        let mut answers = Map::new();
        for (key, request) in requests.iter().flat_map(|r| r.iter()) {
            answers.insert(key.to_owned(), self.answers.answer(key, request)?);
        }
        Ok(Value::Object(answers))
    }
}
