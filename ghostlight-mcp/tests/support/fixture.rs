//! A fixture web site on 127.0.0.1 (a free port), served from a background thread.
//!
//! * `/form`: a sign-up form (a "Name" text field, an "I agree" checkbox, a "Send" button).
//!   Sending it writes the page's own confirmation, `Thank you, <name>. Agreed: yes|no.`,
//!   into the page (no navigation).
//! * `/hello`: a short article.

use std::sync::Arc;
use std::thread::JoinHandle;

const FORM: &str = r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Ghostlight fixture</title>
<style>body { font: 16px sans-serif; margin: 2em; } label { display: block; margin: .5em 0; }</style>
</head><body>
<h1>Sign up</h1>
<form id="signup">
  <label>Name <input type="text" name="name" id="name"></label>
  <label><input type="checkbox" name="agree" id="agree"> I agree</label>
  <button type="submit">Send</button>
</form>
<p id="result" role="status"></p>
<script>
document.getElementById('signup').addEventListener('submit', function (event) {
  event.preventDefault();
  var name = document.getElementById('name').value;
  var agreed = document.getElementById('agree').checked ? 'yes' : 'no';
  document.getElementById('result').textContent = 'Thank you, ' + name + '. Agreed: ' + agreed + '.';
});
</script>
</body></html>"#;

const HELLO: &str = r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Hello fixture</title></head>
<body><main><article><h1>Hello</h1><p>Ghostlight reads this sentence from a fixture page.</p></article></main></body></html>"#;

/// The running fixture site; stops when dropped.
pub(crate) struct Fixture {
    server: Arc<tiny_http::Server>,
    thread: Option<JoinHandle<()>>,
    /// `http://127.0.0.1:PORT`
    pub(crate) base: String,
}

impl Fixture {
    /// Start serving.
    pub(crate) fn start() -> Fixture {
        let server =
            Arc::new(tiny_http::Server::http("127.0.0.1:0").unwrap_or_else(|e| panic!("fixture: {e}")));
        let port =
            server.server_addr().to_ip().map(|a| a.port()).unwrap_or_else(|| panic!("fixture: no port"));
        let serving = server.clone();
        let thread = std::thread::spawn(move || {
            for request in serving.incoming_requests() {
                let path = request.url().split('?').next().unwrap_or("/").to_owned();
                let (status, body) = match path.as_str() {
                    "/form" => (200, FORM),
                    "/hello" => (200, HELLO),
                    _ => (404, "<!doctype html><title>Not found</title><p>Not found</p>"),
                };
                let header = tiny_http::Header::from_bytes("Content-Type", "text/html; charset=utf-8")
                    .unwrap_or_else(|()| panic!("fixture: a header"));
                let response =
                    tiny_http::Response::from_string(body).with_status_code(status).with_header(header);
                let _ = request.respond(response);
            }
        });
        Fixture { server, thread: Some(thread), base: format!("http://127.0.0.1:{port}") }
    }

    /// The URL of `path` on the fixture.
    pub(crate) fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        self.server.unblock();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
