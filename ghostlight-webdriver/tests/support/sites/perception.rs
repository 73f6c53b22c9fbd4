//! The perception tests' site. The same server answers as `127.0.0.1` and as `localhost`:
//! two origins, for cross-origin frames.

use std::fmt::Write as _;

use crate::support::server::Site;

/// How many controls `/many` holds.
pub(crate) const MANY_CONTROLS: usize = 500;

/// What `/text` shows: a search text, and whether the page's visible text holds it (matched
/// ignoring case and runs of spaces; hidden text never counts, open shadow roots and
/// same-origin frames do).
pub(crate) const TEXT_CASES: [(&str, bool); 6] = [
    ("visible sentence here", true),
    ("VISIBLE   SENTENCE", true),
    ("Invisible words", false),
    ("Shadow words", true),
    ("frame paragraph TEXT", true),
    ("nowhere to be found", false),
];

/// A 1×1 transparent GIF, for images that must render without the network.
const PIXEL: &str = "data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7";

/// Start the site (unknown paths answer 404).
pub(crate) fn start() -> Site {
    Site::html(|path, port| match page(path, port) {
        Some(body) => (200, body),
        None => (404, "<!doctype html><title>Not found</title>".to_owned()),
    })
}

/// The page at `path` (the server listens on `port`), or `None` for a 404.
fn page(path: &str, port: u16) -> Option<String> {
    Some(match path {
        "/controls" => controls(port),
        "/frame" => FRAME.to_owned(),
        "/xframe" => XFRAME.to_owned(),
        "/nested" => NESTED.to_owned(),
        "/mid" => MID.to_owned(),
        "/structure" => STRUCTURE.to_owned(),
        "/many" => many(),
        "/article" => ARTICLE.to_owned(),
        "/short" => SHORT.to_owned(),
        "/find" => FIND.to_owned(),
        "/text" => TEXT.to_owned(),
        "/e2e" => E2E.to_owned(),
        "/aria" => ARIA.to_owned(),
        "/shown" => SHOWN.to_owned(),
        _ => return None,
    })
}

/// Roles, names, states, credential classes, hidden content, a shadow root, a same-origin and
/// a cross-origin frame.
fn controls(port: u16) -> String {
    format!(
        r#"<!doctype html><html><head><title>Controls</title></head><body>
<h1>Controls</h1>
<label for="email">Email address</label> <input id="email" type="email" placeholder="you@example.com">
<span id="lbl">Search the catalog</span> <input id="q" type="search" aria-labelledby="lbl" placeholder="Type here">
<input id="ph" type="text" placeholder="Only placeholder">
<input id="titled" type="text" title="Title name" placeholder="Placeholder name">
<label>Nested <input id="nested" type="text"> label</label>
<label for="bio">Biography</label> <textarea id="bio">Default bio text</textarea>
<div id="editor" contenteditable="true" aria-label="Editor"></div>
<button id="save">Save</button>
<input type="submit" value="Send it">
<input type="submit">
<a href="/home">Go home</a>
<a href="/logo"><img alt="Logo image" src="{PIXEL}" width="10" height="10"></a>
<button aria-label="Close dialog">X</button>
<select id="country" aria-label="Country"><option>France</option><option>Spain</option></select>
<div role="button" tabindex="0">Custom</div>
<div role="switch" aria-checked="true" tabindex="0">Dark mode</div>
<div draggable="true" aria-label="Task card">Write the report</div>
<input type="range" aria-label="Volume">
<input type="number" aria-label="Quantity">
<button disabled>Disabled button</button>
<input type="checkbox" id="agree" checked> <label for="agree">Agree</label>
<button aria-expanded="true">Menu</button>
<input aria-label="Required field" required>
<input aria-label="Bad field" aria-invalid="true">
<input type="password" aria-label="Your password">
<input autocomplete="one-time-code" aria-label="Code">
<input autocomplete="cc-number" aria-label="Card">
<input autocomplete="cc-csc" aria-label="Check digits">
<input autocomplete="new-password" aria-label="Choose one">
<input name="user_pin" aria-label="Your PIN">
<input name="otp" aria-label="Enter code">
<input name="cvv" aria-label="Security">
<input name="passport" aria-label="Passport number">
<button style="display:none">Hidden one</button>
<button style="visibility:hidden">Hidden two</button>
<div hidden><button>Hidden three</button></div>
<div id="host"></div>
<script>document.getElementById('host').attachShadow({{mode: 'open'}}).innerHTML = '<button id="sb">Shadow button</button>';</script>
<iframe id="same" src="/frame" width="300" height="120"></iframe>
<iframe id="cross" src="http://localhost:{port}/xframe" width="300" height="120"></iframe>
<button id="last">Last button</button>
</body></html>"#
    )
}

const FRAME: &str = r#"<!doctype html><html><head><title>Frame</title></head><body>
<button id="fb">Frame button</button> <input id="ff" aria-label="Frame field">
<p>Frame paragraph text</p>
</body></html>"#;

/// The cross-origin frame: its password field fills the frame's centre, so that a real click
/// on the iframe element focuses it (Chromium); Firefox's click focuses only the frame, whose
/// window then hands focus to the field.
const XFRAME: &str = r#"<!doctype html><html><head><title>Cross</title></head><body style="margin:0">
<input type="password" id="xp" aria-label="Cross password" style="display:block;box-sizing:border-box;width:300px;height:100px">
<button id="xb">Cross button</button>
<script>addEventListener('focus', () => { if (document.activeElement === document.body) document.getElementById('xp').focus(); });</script>
</body></html>"#;

const NESTED: &str = r#"<!doctype html><html><head><title>Nested</title></head><body>
<button>Top</button>
<iframe src="/mid" width="400" height="300"></iframe>
<button>After</button>
</body></html>"#;

const MID: &str = r#"<!doctype html><html><head><title>Mid</title></head><body>
<button>Mid</button>
<iframe src="/frame" width="300" height="150"></iframe>
</body></html>"#;

const STRUCTURE: &str = r#"<!doctype html><html><head><title>Structure</title></head><body>
<header><p>Site banner</p></header>
<nav aria-label="Primary"><ul><li><a href="/a">Alpha</a></li><li><a href="/b">Beta</a></li></ul></nav>
<main>
  <h1>Main title</h1>
  <section id="details" aria-label="Details region">
    <h2>Details</h2>
    <ul><li>One</li><li>Two</li></ul>
    <table><caption>Prices</caption><tr><th>Item</th><th>Price</th></tr><tr><td>Tea</td><td>3</td></tr></table>
    <section aria-label="Inner region"><h3>Deep heading</h3></section>
  </section>
  <img alt="Chart" src="data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7" width="20" height="20">
  <button>Act</button>
</main>
<aside aria-label="Sidebar"><h2>Aside heading</h2></aside>
<footer><p>Footer</p></footer>
<h2 style="display:none">Hidden heading</h2>
</body></html>"#;

/// 500 controls of ten kinds.
fn many() -> String {
    let mut body =
        String::from("<!doctype html><html><head><title>Many</title></head><body><h1>Many controls</h1>\n");
    for i in 0..MANY_CONTROLS {
        let _ = match i % 10 {
            0 => writeln!(body, "<button>Button {i}</button>"),
            1 => writeln!(body, "<a href=\"/l{i}\">Link {i}</a>"),
            2 => writeln!(body, "<label>Field {i} <input type=\"text\"></label>"),
            3 => writeln!(body, "<input type=\"checkbox\" aria-label=\"Check {i}\">"),
            4 => writeln!(body, "<input type=\"radio\" name=\"r\" aria-label=\"Radio {i}\">"),
            5 => writeln!(
                body,
                "<select aria-label=\"Select {i}\"><option>One</option><option>Two</option></select>"
            ),
            6 => writeln!(body, "<textarea aria-label=\"Area {i}\"></textarea>"),
            7 => writeln!(body, "<input type=\"range\" aria-label=\"Range {i}\">"),
            8 => writeln!(body, "<div role=\"tab\" tabindex=\"0\">Tab {i}</div>"),
            _ => writeln!(body, "<input type=\"submit\" value=\"Submit {i}\">"),
        };
    }
    body.push_str("</body></html>");
    body
}

/// A news article page (about 3,700 bytes) between navigation, ads, a sidebar and a footer.
const ARTICLE: &str = r#"<!doctype html><html><head><title>Article</title>
<style>.ad { border: 1px solid #ccc; }</style></head><body>
<header class="site-header"><div class="logo">NAVBRAND</div><div class="ad banner-ad">BANNERAD buy now</div></header>
<nav><ul><li><a href="/">NAVLINK Home</a></li><li><a href="/world">NAVLINK World</a></li><li><a href="/tech">NAVLINK Technology</a></li><li><a href="/sport">NAVLINK Sport</a></li></ul></nav>
<div class="layout">
<main>
<article>
<header><h1>Lighthouse keepers return to the northern coast</h1><p class="byline">By a staff writer</p></header>
<p>For the first time in forty years, the lighthouse on the northern headland has a keeper again. The decision came after a winter of storms in which the automated lamp failed twice, leaving fishing boats to find the harbour mouth by memory and by the glow of the village behind it.</p>
<div class="ad ad-inline">ADVERT Subscribe to our premium plan today and save</div>
<p>The new keeper, a retired ferry engineer, moved into the cottage at the foot of the tower in March. She climbs the one hundred and twelve steps each evening to check the lens, trims the backup oil lamp, and logs the weather in a ledger that her predecessors began in the nineteenth century.</p>
<p>Harbour officials say the arrangement is partly practical and partly symbolic. A person on site can restart the lamp within minutes, whereas a repair crew from the city needs most of a day to arrive. The village council also hopes the staffed lighthouse will draw visitors in the quiet months between the summer festivals.</p>
<p style="display:none">HIDDENTEXT this paragraph is hidden and must not be read</p>
<p>Not everyone is convinced. Some fishermen argue that money would be better spent on a second automated beacon at the reef, which has claimed three boats in the last decade. The keeper herself is sympathetic: she says she would gladly see a new beacon built, and would keep the old lamp burning all the same.</p>
<p>The ledger itself has become something of a local treasure. Its oldest pages record ships by name, the colour of the sea at dawn, and the occasional complaint about the price of lamp oil. A historian from the regional museum has offered to photograph every page, so that the entries can be read without wearing out the paper, and schoolchildren from the village have already transcribed the first decade of notes as a class project.</p>
<p>For now, the lamp turns every night from dusk until dawn, and the ledger grows by one line a day. Visitors are welcome on Saturday afternoons, when the keeper opens the tower and explains how the great lens bends a small flame into a beam that can be seen thirty kilometres out at sea.</p>
<p>The harbour master expects the arrangement to be reviewed after two winters, once there is a record to compare with the years of automation.</p>
<p>Until then, the keeper says, the light will not go out, whatever the weather and whatever the council decides about the reef beacon next spring.</p>
<footer class="article-tags">ARTICLEFOOTER Tags: coast, lighthouses</footer>
</article>
</main>
<aside class="sidebar"><h2>SIDEBAR Most read</h2><ul><li><a href="/x">SIDEBAR Storm warnings issued</a></li><li><a href="/y">SIDEBAR Ferry timetable changes</a></li></ul>
<div class="sponsored">ADVERT Sponsored: holiday cottages by the sea</div></aside>
</div>
<form class="newsletter"><label>FORMTEXT Newsletter <input type="email" placeholder="Email"></label><button>FORMTEXT Sign up</button></form>
<footer class="site-footer"><p>FOOTERTEXT Copyright the Coastal Gazette. All rights reserved.</p><p>FOOTERTEXT Contact us about advertising.</p></footer>
</body></html>"#;

const SHORT: &str = r#"<!doctype html><html><head><title>Short</title></head><body>
<nav><a href="/">Home</a></nav><div>Just a short note.</div><footer>Short footer</footer>
</body></html>"#;

const FIND: &str = r#"<!doctype html><html><head><title>Find</title></head><body>
<h2>Submission rules</h2>
<p>Please submit the form before noon.</p>
<button>Submit</button>
<button>Submit order</button>
<a href="/help" aria-label="Help center">?</a>
<ul><li>First item</li><li>Second <b>deep inside</b> item</li></ul>
<table><tr><td>Cell alpha</td><td>Cell beta</td></tr></table>
<label for="n">Name label</label> <input id="n">
<p style="display:none">Submit hidden paragraph</p>
<button style="display:none">Submit hidden</button>
</body></html>"#;

const TEXT: &str = r#"<!doctype html><html><head><title>Text</title></head><body>
<p>Visible   sentence
here.</p>
<p style="display:none">Invisible words</p>
<div id="host"></div>
<script>document.getElementById('host').attachShadow({mode: 'open'}).innerHTML = '<p>Shadow words</p>';</script>
<iframe src="/frame" width="300" height="120"></iframe>
</body></html>"#;

/// Content outside the accessibility tree (`aria-hidden="true"`) beside shown content, and a
/// role-less element named only by `aria-label`.
const ARIA: &str = r#"<!doctype html><html><head><title>Aria</title></head><body>
<h1>Aria page</h1>
<p>Shown words <span aria-hidden="true">decorative glyphs</span> end here.</p>
<button aria-hidden="true">Ghost button</button>
<div aria-hidden="true"><p>Hidden paragraph words</p><a href="/ghost">Ghost link</a><iframe src="/frame" width="300" height="120"></iframe></div>
<button>Save <span aria-hidden="true">starglyph</span></button>
<div aria-label="Close the banner" style="width:20px;height:20px">x</div>
<div id="host"></div>
<script>document.getElementById('host').attachShadow({mode: 'open'}).innerHTML = '<p aria-hidden="true">Shadow ghost words</p><p>Shadow shown words</p>';</script>
</body></html>"#;

/// The table of tricky elements for the one DOM semantics of "shown" (`scripts/dom.js`):
/// each control's name says whether it is shown.
const SHOWN: &str = r#"<!doctype html><html><head><title>Shown</title></head><body>
<button>Shown plain</button>
<div style="display:none"><button>Hidden display none ancestor</button></div>
<button style="visibility:hidden">Hidden visibility</button>
<button style="width:0;height:0;padding:0;border:0;overflow:hidden;display:block">Hidden zero size</button>
<button style="position:absolute;left:-10000px">Shown off screen</button>
<div inert><button>Hidden inert</button></div>
<div aria-hidden="true"><button>Hidden aria</button></div>
<div id="host"></div>
<button style="opacity:0">Shown transparent</button>
<details><summary>Shown summary</summary><button>Hidden closed details</button></details>
<p><label for="f">Shown labelled field</label> <input id="f"></p>
<p><span id="lb">Shown labelled by</span> <input aria-labelledby="lb"></p>
<div style="height:3000px"></div><button>Shown below the fold</button>
<script>document.getElementById('host').attachShadow({mode: 'open'}).innerHTML = '<button>Shown in shadow</button>';</script>
</body></html>"#;

const E2E: &str = r#"<!doctype html><html><head><title>E2E</title></head><body>
<nav><a href="/">Home</a> <a href="/about">About</a></nav>
<main><article><h1>Release notes</h1>
<p>This release makes the reader faster and the inspector smaller. It also fixes a long-standing bug in which hidden paragraphs were read aloud. Thanks to everyone who reported it and helped test the fix over the last months.</p>
<p>Upgrading is safe: the configuration format is unchanged, and the old handles keep working until the next navigation. The documentation describes the few new options in detail.</p>
<form><label for="e">Email</label> <input id="e" type="email"> <input type="password" aria-label="Password"> <button>Save settings</button></form>
</article></main>
<footer>Footer text</footer>
</body></html>"#;
