//! A fixture web site on 127.0.0.1 (a free port), served by the loopback page server the
//! WebDriver suites use ([`super::site`]).
//!
//! * `/form`: a sign-up form (a "Name" text field, an "I agree" checkbox, a "Send" button).
//!   Sending it writes the page's own confirmation, `Thank you, <name>. Agreed: yes|no.`,
//!   into the page (no navigation).
//! * `/forms`: a form of every control kind (constraints, invalid fields, a radio group in a
//!   fieldset, selects, passwords filled and empty), a control outside any form and a
//!   same-origin frame (`/forms/frame`) holding a form of its own, for `tests/forms.rs`.
//! * `/hello`: a short article.
//! * `/article`: a long article (200 paragraphs, about 60 KB of text), for size figures.
//! * `/controls`: 500 labelled buttons, for size figures of an inspection.
//! * `/conf/<page>`: the conformance pages of `tests/support/conformance/<page>.html` (`main`,
//!   `article`, `diag`, `opener`, `closer`, `unload`), for `tests/conformance.rs`, and
//!   `outcomes` (multi-selects, modifier clicks and the outcome waits) for
//!   `tests/form_outcomes.rs`.

use super::site::{HOST_A, HOST_B, Reply, Site};

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

/// The password the `/forms` page holds (typed in by its script): never in any answer.
pub(crate) const FORMS_PASSWORD: &str = "hunter2-TYPED-secret";
/// The password the `/forms` page's markup holds (its `value` attribute, replaced by the
/// typed one).
pub(crate) const FORMS_PASSWORD_MARKUP: &str = "markup-PASSWORD-value";
/// The text typed into the `/forms` page's nickname field: a value, never in any answer.
pub(crate) const FORMS_NICKNAME: &str = "Zanzibar-NICK-value";

const FORMS: &str = r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Forms fixture</title>
<style>body { font: 16px sans-serif; margin: 2em; } label { display: block; margin: .3em 0; }</style>
</head><body>
<h1>Create an account</h1>
<form id="signup" aria-label="Sign up">
  <label>Full name <input type="text" name="fullname" required></label>
  <label>Nickname <input type="text" name="nick" id="nick"></label>
  <label>Email <input type="email" name="email" value="not-an-email"></label>
  <label>Age <input type="number" name="age" min="18" max="120" step="1" value="12"></label>
  <label>Bio <textarea name="bio" minlength="10" maxlength="200"></textarea></label>
  <label>Postcode <input type="text" name="postcode" pattern="[0-9]{5}" value="abc"></label>
  <label><input type="checkbox" name="news" checked> Newsletter</label>
  <fieldset><legend>Plan</legend>
    <label><input type="radio" name="plan" value="free" required> Free</label>
    <label><input type="radio" name="plan" value="pro"> Pro</label>
    <label><input type="radio" name="plan" value="team"> Team</label>
  </fieldset>
  <label>Country <select name="country"><option value="">Choose one</option><option value="fr">France</option><option value="de">Germany</option></select></label>
  <label>Toppings <select name="toppings" multiple><option selected>Cheese</option><option>Ham</option><option>Olives</option></select></label>
  <label>Start date <input type="date" name="start" min="2026-01-01" max="2026-12-31"></label>
  <label>Avatar <input type="file" name="avatar"></label>
  <label>Password <input type="password" name="password" id="password" value="markup-PASSWORD-value"></label>
  <label>Confirm password <input type="password" name="confirm"></label>
  <button type="submit">Create account</button>
</form>
<label>Search the site <input type="search" name="q"></label>
<div role="switch" aria-checked="true" tabindex="0" aria-label="Dark mode"></div>
<button type="button">Help</button> <a href="/hello">Read more</a>
<iframe src="/forms/frame" title="Newsletter" width="400" height="160"></iframe>
<script>
document.getElementById('password').value = 'hunter2-TYPED-secret';
document.getElementById('nick').value = 'Zanzibar-NICK-value';
</script>
</body></html>"#;

const FORMS_FRAME: &str = r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Newsletter frame</title></head><body>
<form aria-label="Subscribe">
  <label>Frame email <input type="email" name="frame_email" required></label>
  <button type="submit">Subscribe</button>
</form>
</body></html>"#;

const HELLO: &str = r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Hello fixture</title></head>
<body><main><article><h1>Hello</h1><p>Ghostlight reads this sentence from a fixture page.</p></article></main></body></html>"#;

/// The long article served at `/article`.
fn article() -> String {
    let mut html = String::from(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Long article</title></head><body><main><article><h1>A long article</h1>",
    );
    for n in 1..=200 {
        html.push_str(&format!(
            "<p>Paragraph {n}. Ghostlight reads long pages in bounded pieces; this sentence pads the \
             article so that a read has real text to carry, about three hundred characters per \
             paragraph, which is the length of an ordinary paragraph in a news story or a manual.</p>"
        ));
    }
    html.push_str("</article></main></body></html>");
    html
}

/// The page of 500 controls served at `/controls`.
fn controls() -> String {
    let mut html = String::from(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Many controls</title></head><body><main>",
    );
    for n in 1..=500 {
        html.push_str(&format!("<button type=\"button\">Control {n}</button>\n"));
    }
    html.push_str("</main></body></html>");
    html
}

/// The conformance pages served at `/conf/<page>` (`tests/python/conformance.py` drives them).
fn conformance_page(path: &str) -> Option<&'static str> {
    Some(match path.strip_prefix("/conf/")? {
        "main" => include_str!("conformance/main.html"),
        "article" => include_str!("conformance/article.html"),
        "diag" => include_str!("conformance/diag.html"),
        "opener" => include_str!("conformance/opener.html"),
        "closer" => include_str!("conformance/closer.html"),
        "unload" => include_str!("conformance/unload.html"),
        "outcomes" => include_str!("conformance/outcomes.html"),
        _ => return None,
    })
}

/// The running fixture site; stops when dropped.
pub(crate) struct Fixture {
    _site: Site,
    /// `http://127.0.0.1:PORT`
    pub(crate) base: String,
}

impl Fixture {
    /// Start serving.
    pub(crate) fn start() -> Fixture {
        Fixture::start_at("127.0.0.1")
    }

    /// Start serving on `127.0.0.2`, a second host for authority rules (or `127.0.0.1`), on a
    /// free port.
    pub(crate) fn start_at(ip: &str) -> Fixture {
        let (article, controls) = (article(), controls());
        let site = Site::serve(move |ask| {
            let (status, body) = match ask.path {
                "/form" => (200, FORM),
                "/hello" => (200, HELLO),
                "/forms" => (200, FORMS),
                "/forms/frame" => (200, FORMS_FRAME),
                "/article" => (200, article.as_str()),
                "/controls" => (200, controls.as_str()),
                other => match conformance_page(other) {
                    Some(page) => (200, page),
                    None => (404, "<!doctype html><title>Not found</title><p>Not found</p>"),
                },
            };
            Reply::html(status, body)
        });
        let url = match ip {
            HOST_A => site.url("/"),
            HOST_B => site.url_b("/"),
            other => panic!("fixture: the site serves {HOST_A} and {HOST_B}, not {other}"),
        };
        let port = url.port().unwrap_or_else(|| panic!("fixture: no port"));
        Fixture { _site: site, base: format!("http://{ip}:{port}") }
    }

    /// The URL of `path` on the fixture.
    pub(crate) fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }
}
