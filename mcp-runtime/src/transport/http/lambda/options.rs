//! How a server is served on Lambda ([`LambdaOptions`]): the endpoint's options and what Lambda
//! adds to them.

use crate::transport::http::HttpOptions;

/// How a server is served on Lambda: the endpoint's [`HttpOptions`] and what Lambda adds.
///
/// ```
/// use mcp_runtime::HttpOptions;
/// use mcp_runtime::lambda::LambdaOptions;
/// let options = LambdaOptions::new(HttpOptions::default().allow_host("mcp.example.com"))
///     .event_domain(false)
///     .response_streaming(true);
/// # let _ = options;
/// ```
#[derive(Debug, Clone)]
#[must_use]
pub struct LambdaOptions {
    pub(super) http: HttpOptions,
    pub(super) event_domain: bool,
    pub(super) streaming: bool,
}

impl Default for LambdaOptions {
    fn default() -> Self {
        LambdaOptions::new(HttpOptions::default())
    }
}

impl From<HttpOptions> for LambdaOptions {
    fn from(http: HttpOptions) -> Self {
        LambdaOptions::new(http)
    }
}

impl LambdaOptions {
    /// Serves with the endpoint options `http` (path, allowed hosts and origins, body limit,
    /// authentication, rate limit); those of a listening server (connections, timeouts of
    /// idle sockets, the lab page, the health endpoint) play no part.
    pub fn new(http: HttpOptions) -> Self {
        LambdaOptions {
            http,
            event_domain: true,
            streaming: false,
        }
    }

    /// Whether a `Host` equal to the domain the event says the function was invoked on
    /// (`requestContext.domainName`) is accepted (default: yes). Off, only loopback names and
    /// those of [`HttpOptions::allow_host`](crate::HttpOptions::allow_host) are.
    pub fn event_domain(mut self, on: bool) -> Self {
        self.event_domain = on;
        self
    }

    /// Streams each answer (as [`lambda_http::run_with_streaming_response`] does): a call's
    /// progress and log notifications reach the client as they are sent (default: off, one
    /// buffered answer). Needs a Function URL with `InvokeMode: RESPONSE_STREAM`.
    pub fn response_streaming(mut self, on: bool) -> Self {
        self.streaming = on;
        self
    }

    /// The endpoint's options.
    pub fn http_options(&self) -> &HttpOptions {
        &self.http
    }
}
