//! The end-to-end site (tools, boundary, landing, remote and fault tests, and the tool
//! benchmark), served on both hosts. Every page records what happened to it where a test can read it back
//! (visible text, and `window.__log` through `browser_execute`).
//!
//! | path | what it offers |
//! | --- | --- |
//! | `/counter` | an "Increment" button and its count, a hover target, a button under a "Cookie notice" overlay, a far button 3000 px down |
//! | `/form` | every fillable control kind, a password field, a "Create account" submit; `#result` reports the submission |
//! | `/keys` | a search field whose Enter submits, and a key log with modifiers |
//! | `/dialogs` | buttons opening an alert, a confirm and a prompt; `#outcome` reports the answer |
//! | `/unload` | asks to confirm leaving (`beforeunload`) once the page had a user gesture |
//! | `/upload` | a multiple file input, an image input and a drop zone, each reporting names and sizes |
//! | `/drag` | a pointer-dragged box with a parking spot, and an HTML5 draggable card with a drop target |
//! | `/problems` | a button that logs a console error and fetches a missing resource (404) |
//! | `/article` | a ≈3,700-byte article wrapped in navigation, an ad, a banner and a footer |
//! | `/many` | 500 controls of five kinds |
//! | `/frames` | a button in an open shadow root and one in a same-origin iframe (`/frame-inner`) |
//! | `/late` | after "Start": a vanishing button goes, late content and a late button come |
//! | `/slow-text` | "Loading the data" for 1.5 s after it loads, then "Report ready" in its place (`window.__shownAt`: when, `Date.now()`) |
//! | `/slow-frame` | `/slow-text` in a same-origin iframe, under a heading of its own |
//! | `/slow-nav` | "Moving on soon", then after 500 ms a navigation to `/slow-text?after` |
//! | `/links` | a link to the second host's `/landing` |
//! | `/landing` | the second host's page |
//! | `/served/NAME` | reports how often it was served and the request's `Cache-Control` |
//! | `/tabs/NAME` | records visibility and focus changes |
//! | `/missing-resource` | 404 |

use crate::support::server::{Ask, HOST_B, Reply, Site};

/// The article's paragraphs (plain ASCII prose, so JSON adds no escapes).
pub(crate) const ARTICLE_PARAGRAPHS: [&str; 9] = [
    "The harbour town of Wendlebury wakes before the sun. Fishing boats leave the quay in a loose line, \
     their lamps swinging, while the bakers on Mill Street pull the first trays of bread from ovens that \
     have burned since three. Visitors rarely see this hour, yet it sets the rhythm for everything that \
     follows: the market, the ferry, the slow turn of the tide against the old stone breakwater.",
    "For most of the last century the town lived on herring. When the shoals moved north in the nineteen \
     seventies, the canneries closed one after another, and the population fell by almost half within a \
     decade. Families who stayed learned to do several things at once. A boat owner might also run a guest \
     house, mend nets for neighbours, and drive the school bus in winter when the roads turned to ice.",
    "Recovery came slowly and from an unexpected direction. A small group of volunteers restored the \
     lighthouse keeper's cottage and opened it as a museum of coastal weather. Their records, kept by hand \
     since eighteen ninety, turned out to be one of the longest continuous series of wind and pressure \
     readings in the country. Researchers began to visit, then students, then the curious public.",
    "Today the museum counts more than forty thousand visitors a year. The volunteers still take readings \
     at nine each morning, with the same brass barometer their predecessors used, and post the numbers on a \
     chalkboard by the door. Children compare the figures with the forecast on their phones and are often \
     surprised to find that the chalkboard was right when the forecast was wrong.",
    "Not everyone welcomes the attention. Some residents worry that holiday lets are pushing young families \
     out of the old quarter, and the council has debated limits on short stays for two winters running. \
     Others argue that without visitors the shops on the harbour front would close again, as they did in \
     the lean years, and that a living town needs both its newcomers and its old hands.",
    "What everyone agrees on is the tide. Twice a day the water rises over the slipway, lifts the boats \
     from the mud, and sets the town moving again. Plans and arguments can wait; the tide cannot. That, \
     the harbour master says, is the one timetable in Wendlebury that nobody has ever managed to change, \
     and he hopes that nobody ever will, because it keeps the whole place honest.",
    "The school on the hill has its own part in the story. Each spring the oldest pupils spend a week at \
     the museum, copying old readings into a shared spreadsheet so that scientists abroad can use them. \
     Several of those pupils have gone on to study the sea and the sky, and two now work at the national \
     weather service, where colleagues tease them about the brass barometer they still trust more than any \
     satellite.",
    "Money remains the hardest question. The museum survives on donations, a modest grant, and the sale \
     of postcards showing the breakwater in storms. Its roof leaks in two places and the keeper's stove \
     smokes when the wind is from the east. The volunteers have applied for funds to repair both before \
     next winter, and they have asked the harbour board to lend a crane for the heavier work on the roof.",
    "Late in the evening, when the last ferry has gone and the quay is quiet, the lighthouse beam still \
     turns across the water. It no longer guides ships; an automatic light on the outer rocks does that \
     now. The town keeps the old lamp burning anyway, partly for the visitors and partly, people say, \
     because Wendlebury would not feel like itself without that slow and patient sweep of light. On \
     clear nights the beam reaches the far shore, and the crews coming home late still say that they \
     steer by it, out of habit more than need.",
];

/// Text of the article page's boilerplate, none of which an article read may contain.
pub(crate) const ARTICLE_BOILERPLATE: [&str; 5] = [
    "Subscribe to our newsletter",
    "Buy discount watches now",
    "Copyright Wendlebury Gazette",
    "Sports desk",
    "Sign in to comment",
];

const HEAD: &str = "<!doctype html><meta charset=utf-8>\
<script>window.__log = []; window.log = (entry) => window.__log.push(String(entry));</script>\
<style>body { margin: 8px; font: 16px sans-serif } button { min-width: 120px; height: 36px; margin: 4px }</style>";

/// Start the site on both hosts.
pub(crate) fn start() -> Site {
    Site::serve(respond)
}

/// Answer one request.
fn respond(ask: &Ask<'_>) -> Reply {
    let html = |body: String| Reply::html(200, body);
    let path = ask.path;
    if let Some(name) = path.strip_prefix("/served/") {
        let hits = ask.seen.hits.get(path).copied().unwrap_or(0);
        let body = format!(
            "{HEAD}<title>Served {name}</title><h1>Page {name}</h1>\
             <p id=served>served {hits}</p><p id=cache>cache-control: {cache}</p>\
             <a href=\"/served/next\">Next page</a>",
            cache = if ask.cache_control.is_empty() { "none" } else { ask.cache_control },
        );
        return Reply { cache_control: Some("max-age=600"), ..html(body) };
    }
    if let Some(page) = path.strip_prefix("/landing/")
        && page != "missing-page"
    {
        return html(landing(page));
    }
    if let Some(page) = path.strip_prefix("/boundary/") {
        return html(boundary(page, ask));
    }
    if let Some(name) = path.strip_prefix("/tabs/") {
        return html(format!("{HEAD}<title>Tab {name}</title><h1>Tab {name}</h1>{TABS_SCRIPT}"));
    }
    let body = match path {
        "/counter" => format!("{HEAD}{COUNTER}"),
        // A window that snaps (smoothly) to 300 px sections: a step's offsets may move after
        // the step answers.
        "/snap" => format!(
            "{HEAD}<title>Snap</title><style>html {{ scroll-snap-type: y mandatory; scroll-behavior: smooth }} \
             section {{ height: 300px; scroll-snap-align: start }}</style>{}",
            "<section>A section</section>".repeat(30)
        ),
        "/outcomes" => format!("{HEAD}{OUTCOMES}"),
        "/form" => format!("{HEAD}{FORM}"),
        "/keys" => format!("{HEAD}{KEYS}"),
        "/dialogs" => format!("{HEAD}{DIALOGS}"),
        "/unload" => format!("{HEAD}{UNLOAD}"),
        "/upload" => format!("{HEAD}{UPLOAD}"),
        "/drag" => format!("{HEAD}{DRAG}"),
        "/problems" => format!("{HEAD}{PROBLEMS}"),
        "/article" => article(),
        "/many" => many(),
        "/frames" => format!("{HEAD}{FRAMES}"),
        // Gate detection (issue 33): a sign-in wall and a consent layer over an article.
        "/gate/login" => format!(
            "{HEAD}<title>Sign in</title><main><h1>Sign in to continue</h1><form>\
             <label>Email <input type=email autocomplete=username></label>\
             <label>Password <input type=password></label><button>Sign in</button></form></main>"
        ),
        "/gate/consent" => format!(
            "{HEAD}<title>Recipes</title><main><h1>Recipes</h1>{}</main>\
             <div style=\"position:fixed;inset:0;background:rgba(0,0,0,.5);display:flex;align-items:center;justify-content:center\">\
             <div style=\"background:#fff;padding:2em\"><h2>We value your privacy</h2>\
             <p>We and our partners use cookies.</p><button>Accept all</button> <button>Reject all</button></div></div>",
            "<p>A paragraph of prose long enough to make this an ordinary page.</p>".repeat(40)
        ),
        "/frame-inner" => format!("{HEAD}{FRAME_INNER}"),
        "/late" => format!("{HEAD}{LATE}"),
        "/slow-text" => format!("{HEAD}{SLOW_TEXT}"),
        "/slow-nav" => format!(
            "{HEAD}<title>Slow navigation</title><p>Moving on soon</p>\
             <script>setTimeout(() => {{ location.href = '/slow-text?after'; }}, 500)</script>"
        ),
        "/slow-frame" => format!(
            "{HEAD}<title>Slow frame</title><h1>Frame host</h1>\
             <iframe src=\"/slow-text\" style=\"width:400px;height:120px\"></iframe>"
        ),
        "/links" => format!(
            "{HEAD}<title>Links</title><h1>Links</h1>\
             <p><a id=away href=\"http://{HOST_B}:{}/landing\">Visit the second host</a></p>\
             <p><a id=home href=\"/counter\">Counter page</a></p>",
            ask.ports[1]
        ),
        "/popups" => format!(
            "{HEAD}<title>Popups</title><h1>Popups</h1>\
             <button onclick=\"window.open('/tabs/help')\">Open help</button>\
             <p><a target=_blank href=\"/tabs/terms\">Read the terms</a></p>"
        ),
        "/landing" => format!(
            "{HEAD}<title>Landing</title><h1>Second host landing</h1><p id=where>landed on {}</p>",
            ask.host
        ),
        "/favicon.ico" => {
            return Reply {
                status: 204,
                content_type: "image/x-icon",
                body: String::new(),
                cache_control: None,
                location: None,
            };
        }
        _ => {
            return Reply { content_type: "text/plain; charset=utf-8", ..Reply::html(404, "not found") };
        }
    };
    html(body)
}

const COUNTER: &str = r#"<title>Counter</title>
<button id=inc onclick="count.textContent = 'Count: ' + (++window.clicks); log('click')">Increment</button>
<span id=count>Count: 0</span>
<p><button id=hover onmouseover="hovered.textContent = 'Hovered: yes'; log('mouseover')">Hover target</button>
<span id=hovered>Hovered: no</span></p>
<div id=wrap style="position: relative; width: 420px; height: 80px">
  <button id=covered onclick="log('covered')">Covered action</button>
  <div id=overlay aria-label="Cookie notice" style="position: absolute; inset: 0; background: rgba(0,0,0,.4)">We use cookies</div>
</div>
<div style="height: 3000px"></div>
<button id=far onclick="log('far')">Far button</button>
<div style="height: 800px"></div>
<script>window.clicks = 0;</script>"#;

/// A multi-select, a modifier probe and the outcomes the waits look for (reached 400 ms after
/// "Later" is clicked).
const OUTCOMES: &str = r#"<title>Outcomes</title>
<p><label>Toppings <select id=toppings multiple size=4>
  <option value=cheese>Cheese</option><option value=ham>Ham</option>
  <option value=olives>Black olives</option><option value=basil>Basil</option></select></label></p>
<p><label>City <input id=city></label> <label><input type=checkbox id=remember> Remember me</label></p>
<p><label>Password <input id=password type=password autocomplete=current-password></label></p>
<p><button id=probe onclick="probed.textContent = ['shift', 'alt', 'ctrl', 'meta'].filter((k) => event[k + 'Key']).join('+') || 'none'">Modifier probe</button>
<span id=probed>-</span>
<button id=later onclick="setTimeout(() => { document.title = 'Done: outcomes'; history.pushState(null, '', '/outcomes/done?step=2'); city.value = 'Paris'; remember.checked = true; for (const n of [1, 2, 3]) { const b = document.createElement('button'); b.textContent = 'Item ' + n; items.append(b); } }, 400)">Later</button></p>
<div id=items></div>"#;

const FORM: &str = r#"<title>Form</title><h1>Create an account</h1>
<form id=form>
  <p><label>Full name <input id=name name=name></label></p>
  <p><label>Email <input id=email type=email name=email></label></p>
  <p><label>Password <input id=password type=password name=password autocomplete=new-password></label></p>
  <p><label>Bio <textarea id=bio name=bio></textarea></label></p>
  <p><label>Country <select id=country name=country>
    <option value="">Choose</option><option value=de>Germany</option><option value=fr>France</option></select></label></p>
  <p><label><input type=checkbox id=agree name=agree> Agree to terms</label></p>
  <fieldset><legend>Plan</legend>
    <label><input type=radio name=plan value=free checked> Free plan</label>
    <label><input type=radio name=plan value=pro> Pro plan</label></fieldset>
  <p><label>Seats <input type=number id=seats name=seats min=1 max=50></label></p>
  <p><label>Volume <input type=range id=volume name=volume min=0 max=10></label></p>
  <p><label>Start date <input type=date id=start name=start></label></p>
  <p><label>Favourite colour <input type=color id=colour name=colour></label></p>
  <div id=notes contenteditable=true role=textbox aria-label="Notes" style="border: 1px solid; min-height: 2em"></div>
  <button id=submit type=submit>Create account</button>
</form>
<p id=result>Not submitted</p>
<script>
  const form = document.getElementById('form');
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const data = Object.fromEntries(new FormData(form).entries());
    data.notes = document.getElementById('notes').textContent;
    data.password_length = document.getElementById('password').value.length;
    window.__submitted = data;
    document.getElementById('result').textContent =
      'Created the account of ' + data.name + ' (' + data.plan + ' plan, ' + data.seats + ' seats)';
  });
</script>"#;

const KEYS: &str = r#"<title>Keys</title>
<form id=search><label>Search <input id=q name=q></label></form>
<p id=submitted>Nothing searched</p>
<script>
  document.getElementById('search').addEventListener('submit', (event) => {
    event.preventDefault();
    const q = document.getElementById('q').value;
    log('submit:' + q);
    document.getElementById('submitted').textContent = 'Searched for ' + q;
  });
  document.getElementById('q').addEventListener('keydown', (event) => {
    const mods = ['ctrlKey', 'shiftKey', 'altKey', 'metaKey'].filter((m) => event[m]).map((m) => m.slice(0, -3));
    log('keydown:' + mods.concat([event.key]).join('+'));
  });
</script>"#;

const DIALOGS: &str = r#"<title>Dialogs</title>
<button id=alert onclick="alert('Saved'); outcome.textContent = 'alert closed'">Show alert</button>
<button id=confirm onclick="outcome.textContent = 'confirm: ' + confirm('Delete it?')">Ask confirm</button>
<button id=prompt onclick="outcome.textContent = 'prompt: ' + prompt('Your name?', 'nobody')">Ask prompt</button>
<p id=outcome>no dialog yet</p>"#;

const UNLOAD: &str = r#"<title>Unsaved</title>
<button id=edit onclick="edited.textContent = 'Edited: yes'; window.dirty = true">Edit the draft</button>
<p id=edited>Edited: no</p>
<script>
  window.nonce = Math.random();
  addEventListener('beforeunload', (event) => { if (window.dirty) { event.preventDefault(); event.returnValue = ''; } });
</script>"#;

const UPLOAD: &str = r#"<title>Upload</title>
<style>#zone { width: 300px; height: 120px; background: #eee; border: 2px dashed #888 }</style>
<p><label>Attachments <input type=file id=files multiple></label></p>
<p id=chosen>No attachments</p>
<p><label>Avatar <input type=file id=avatar accept="image/*"></label></p>
<p id=avatar-chosen>No avatar</p>
<div id=zone role=region aria-label="Drop zone">Drop images here</div>
<p id=dropped>Nothing dropped</p>
<script>
  const describe = (files) => Array.from(files).map((f) => f.name + ' (' + f.size + ' bytes)').join(', ');
  document.getElementById('files').addEventListener('change', (e) => {
    chosen.textContent = e.target.files.length + ' attached: ' + describe(e.target.files);
  });
  document.getElementById('avatar').addEventListener('change', (e) => {
    document.getElementById('avatar-chosen').textContent = 'Avatar: ' + describe(e.target.files) + ' ' + (e.target.files[0] || {}).type;
  });
  const zone = document.getElementById('zone');
  zone.addEventListener('dragover', (e) => e.preventDefault());
  zone.addEventListener('drop', (e) => {
    e.preventDefault();
    dropped.textContent = 'Dropped: ' + describe(e.dataTransfer.files) + ' ' + (e.dataTransfer.files[0] || {}).type;
  });
</script>"#;

const DRAG: &str = r#"<title>Drag</title>
<style>body { margin: 0 }
#box { position: absolute; left: 20px; top: 20px; width: 80px; height: 80px; background: teal; touch-action: none; z-index: 1 }
#park { position: absolute; left: 400px; top: 20px; width: 120px; height: 120px; border: 2px dashed green }
#card { position: absolute; left: 20px; top: 220px; width: 120px; height: 60px; background: orange }
#target { position: absolute; left: 400px; top: 220px; width: 160px; height: 100px; background: silver }
#status { position: absolute; left: 20px; top: 360px }</style>
<div id=box role=button tabindex=0 aria-label="Movable box"></div>
<div id=park role=region aria-label="Parking spot"></div>
<div id=card draggable=true role=button tabindex=0 aria-label="Drag card">Card</div>
<div id=target role=region aria-label="Drop target">Drop here</div>
<div id=status><p id=box-status>Box not moved</p><p id=drop-status>Nothing dropped</p></div>
<script>
  const box = document.getElementById('box');
  const park = document.getElementById('park');
  let grab = null;
  box.addEventListener('pointerdown', (e) => { grab = { dx: e.clientX - box.offsetLeft, dy: e.clientY - box.offsetTop }; box.setPointerCapture(e.pointerId); });
  box.addEventListener('pointermove', (e) => { if (grab) { box.style.left = (e.clientX - grab.dx) + 'px'; box.style.top = (e.clientY - grab.dy) + 'px'; } });
  box.addEventListener('pointerup', (e) => {
    grab = null;
    const p = park.getBoundingClientRect();
    const inside = e.clientX >= p.left && e.clientX <= p.right && e.clientY >= p.top && e.clientY <= p.bottom;
    document.getElementById('box-status').textContent = (inside ? 'Box parked' : 'Box moved') + ' at ' + box.offsetLeft + ',' + box.offsetTop;
  });
  const card = document.getElementById('card');
  const target = document.getElementById('target');
  card.addEventListener('dragstart', (e) => { e.dataTransfer.setData('text/plain', 'card-payload'); log('dragstart'); });
  target.addEventListener('dragover', (e) => e.preventDefault());
  target.addEventListener('drop', (e) => {
    e.preventDefault();
    document.getElementById('drop-status').textContent = 'Dropped: ' + e.dataTransfer.getData('text/plain');
  });
</script>"#;

const PROBLEMS: &str = r#"<title>Problems</title>
<button id=cause onclick="cause()">Cause problems</button>
<p id=state>quiet</p>
<script>
  function cause() {
    console.error('gl-e2e console error');
    fetch('/missing-resource').then((r) => { state.textContent = 'fetched ' + r.status; });
  }
</script>"#;

const FRAMES: &str = r#"<title>Frames</title>
<div id=host></div>
<p id=shadow-count>Shadow clicks: 0</p>
<iframe id=frame src="/frame-inner" style="width: 400px; height: 120px"></iframe>
<p id=frame-count>Frame clicks: 0</p>
<script>
  window.shadowClicks = 0; window.frameClicks = 0;
  const root = document.getElementById('host').attachShadow({ mode: 'open' });
  root.innerHTML = '<button id=shadow>Shadow button</button>';
  root.getElementById('shadow').addEventListener('click', () => {
    document.getElementById('shadow-count').textContent = 'Shadow clicks: ' + (++window.shadowClicks);
  });
</script>"#;

const FRAME_INNER: &str = r#"<title>Inner</title>
<button id=inner onclick="parent.document.getElementById('frame-count').textContent = 'Frame clicks: ' + (++parent.frameClicks)">Frame button</button>"#;

const LATE: &str = r#"<title>Late</title>
<button id=start onclick="start()">Start</button>
<p id=loading>Loading the report</p>
<button id=vanish>Vanishing button</button>
<div id=later></div>
<script>
  function start() {
    setTimeout(() => { document.getElementById('vanish').remove(); document.getElementById('loading').remove(); }, 500);
    setTimeout(() => {
      document.getElementById('later').innerHTML = '<p>Late content arrived</p><button>Late button</button>';
    }, 900);
  }
</script>"#;

const SLOW_TEXT: &str = r#"<title>Slow text</title>
<p id=slot>Loading the data</p>
<script>
  setTimeout(() => { document.getElementById('slot').textContent = 'Report ready'; window.__shownAt = Date.now(); }, 1500);
</script>"#;

const TABS_SCRIPT: &str = r#"<p id=state></p>
<script>
  const note = (what) => { log(what + ':' + document.visibilityState); };
  note('load');
  document.addEventListener('visibilitychange', () => note('visibility'));
  addEventListener('focus', () => note('focus'));
</script>"#;

/// The article page: the article between navigation, a banner, an ad and a footer.
fn article() -> String {
    let paragraphs: String = ARTICLE_PARAGRAPHS.iter().map(|p| format!("<p>{p}</p>\n")).collect();
    let [newsletter, ad, copyright, sports, comment] = ARTICLE_BOILERPLATE;
    format!(
        "{HEAD}<title>Wendlebury and the tide</title>\
         <header class=site-header><a href=/>Wendlebury Gazette</a> <span>{newsletter}</span></header>\
         <nav><a href=/news>News</a> <a href=/sports>{sports}</a> <a href=/weather>Weather</a></nav>\
         <div class=layout>\
         <aside class=ad><p>{ad}: the finest discount watches, shipped free to every harbour town.</p></aside>\
         <main><article><h1>Wendlebury and the tide</h1>\n{paragraphs}</article>\
         <section class=comments><button>{comment}</button></section></main>\
         </div>\
         <footer><p>{copyright}. All rights reserved. Privacy. Terms. Contact the editors.</p></footer>"
    )
}

/// 500 controls: 100 each of buttons, links, labelled text fields, checkboxes and selects.
fn many() -> String {
    let mut body = format!("{HEAD}<title>Many controls</title>");
    for i in 0..100 {
        body.push_str(&format!(
            "<div><button>Button {i}</button><a href=#l{i}>Link {i}</a>\
             <label>Field {i} <input></label><label><input type=checkbox> Check {i}</label>\
             <label>Choice {i} <select><option>One</option><option>Two</option></select></label></div>"
        ));
    }
    body
}

/// The pages of the authority-boundary tests (`tests/boundary.rs`): on the first host, forms,
/// a page framing the second host and one framing itself, `localhost` and the second host; on the second host (outside the tests' authority), a
/// red widget whose button and form report to the server, and a red page with a title that
/// must never be shown.
fn boundary(page: &str, ask: &Ask<'_>) -> String {
    let denied = format!("http://{HOST_B}:{}", ask.ports[1]);
    match page {
        "login" => format!(
            "{HEAD}<title>Sign in</title><h1>Sign in</h1>\
             <p><label>User <input id=user></label></p>\
             <p><label>Password <input id=pw type=password></label></p>"
        ),
        "advance" => format!(
            "{HEAD}<title>Verify</title><h1>Verify</h1>\
             <p><label>Code <input id=code maxlength=3 \
             oninput=\"if (this.value.length >= 3) document.getElementById('pw').focus()\"></label></p>\
             <p><label>Password <input id=pw type=password></label></p>"
        ),
        "framed" => format!(
            "{HEAD}<title>Framed</title><body style=\"background:#fff\"><h1>Framed widget</h1>\
             <iframe id=deny src=\"{denied}/boundary/widget\" \
             style=\"position:absolute;left:20px;top:120px;width:400px;height:160px;border:0\"></iframe>\
             <iframe id=denyform src=\"{denied}/boundary/field\" \
             style=\"position:absolute;left:20px;top:320px;width:400px;height:120px;border:0\"></iframe>\
             <p style=\"position:absolute;left:460px;top:120px\"><button id=mine>Mine</button></p>"
        ),
        "hostile-framed" => format!(
            "{HEAD}<title>Hostile framed</title><body style=\"background:#fff\"><h1>Hostile framed</h1>\
             <p style=\"position:absolute;left:20px;top:120px;margin:0\">\
             <button id=covered style=\"width:300px;height:100px\">Covered</button></p>\
             <iframe id=deny src=\"{denied}/boundary/widget\" \
             style=\"position:absolute;left:20px;top:120px;width:400px;height:160px;border:0\"></iframe>\
             <script>const covered = document.getElementById('covered');\
             Document.prototype.elementFromPoint = function () {{ return covered; }};\
             Document.prototype.elementsFromPoint = function () {{ return [covered]; }};</script>"
        ),
        "hostile-focus" => format!(
            "{HEAD}<title>Hostile focus</title><body style=\"background:#fff\"><h1>Hostile focus</h1>\
             <p><label>Decoy <input id=decoy></label></p>\
             <iframe id=denyform src=\"{denied}/boundary/field\" \
             style=\"position:absolute;left:20px;top:320px;width:400px;height:120px;border:0\"></iframe>\
             <script>const decoy = document.getElementById('decoy');\
             Object.defineProperty(Document.prototype, 'activeElement', {{ get() {{ return decoy; }} }});\
             Object.defineProperty(ShadowRoot.prototype, 'activeElement', {{ get() {{ return null; }} }});\
             </script>"
        ),
        "hostile-guard" => format!(
            "{HEAD}<title>Hostile guard</title><h1>Hostile guard</h1>\
             <p><label>Code <input id=code \
             oninput=\"if (this.value.length >= 2) document.getElementById('spy').focus()\"></label></p>\
             <iframe id=spy src=\"{denied}/boundary/keys\" style=\"width:400px;height:80px\"></iframe>\
             <script>EventTarget.prototype.addEventListener = function () {{}};\
             EventTarget.prototype.removeEventListener = function () {{}};</script>"
        ),
        "frames" => format!(
            "{HEAD}<title>Frames</title><h1>Frames</h1><p>Top text.</p>\
             <iframe src=\"/boundary/inner\" style=\"width:400px;height:80px\"></iframe>\
             <iframe src=\"http://localhost:{}/boundary/cross\" style=\"width:400px;height:80px\"></iframe>\
             <iframe src=\"{denied}/boundary/widget\" style=\"width:400px;height:80px\"></iframe>\
             <p>After the frames.</p>",
            ask.ports[0]
        ),
        "inner" => format!("{HEAD}<title>Inner</title><p>Inner same-origin words.</p>"),
        "cross" => format!(
            "{HEAD}<title>Cross</title><p>Cross-origin words.</p><button>Cross button</button>\
             <p id=late></p><script>setTimeout(() => \
             document.getElementById('late').textContent = 'Arrived later', 400)</script>"
        ),
        "upload" => format!(
            "{HEAD}<title>Upload</title><h1>Upload</h1>\
             <p><label>Attachment <input id=file type=file></label></p>"
        ),
        "out" => format!(
            "{HEAD}<title>Leaving</title><script>setTimeout(() => location.replace('{denied}/boundary/secret'), 300)</script>"
        ),
        "wrap" => format!(
            "{HEAD}<title>Wrapped</title><h1>Wrapped</h1><script>\
             window.captured = 0;\
             const original = URL.createObjectURL;\
             URL.createObjectURL = function (blob) {{\
               window.captured += 1; fetch('/boundary/leak'); return original.call(URL, blob); }};\
             </script>"
        ),
        "widget" if ask.host == HOST_B => format!(
            "{HEAD}<title>Widget</title><body style=\"margin:0;background:#f00\">\
             <button id=press style=\"margin:0;width:400px;height:160px;background:#f00;border:0\" \
             onclick=\"fetch('/boundary/clicked')\">Press</button>"
        ),
        "field" if ask.host == HOST_B => format!(
            "{HEAD}<title>Field</title><body style=\"margin:0;background:#f00\">\
             <form action=\"/boundary/typed\"><input id=q name=q \
             onkeydown=\"fetch('/boundary/key')\" \
             style=\"margin:0;width:400px;height:120px;background:#f00;border:0\"></form>"
        ),
        "keys" if ask.host == HOST_B => format!(
            "{HEAD}<title>Keys</title><p>Keys</p>\
             <script>addEventListener('keydown', () => fetch('/boundary/key'), true);</script>"
        ),
        "secret" if ask.host == HOST_B => {
            format!("{HEAD}<title>Denied secret title</title><body style=\"background:#f00\"><h1>Secret</h1>")
        }
        _ => format!("{HEAD}<title>Nothing</title>"),
    }
}

/// The pages of the landing tests (`tests/landing.rs`): a GET form whose submission leads to
/// another page (it starts in a later task, after the input answered), and that page.
fn landing(page: &str) -> String {
    match page {
        "form" => format!(
            "{HEAD}<title>Search</title><h1>Search</h1>\
             <form action=\"/landing/done\" method=get>\
             <p><label>Query <input id=q name=q></label></p>\
             <p><button id=go>Go</button> <button type=button id=nothing>Nothing</button></p></form>"
        ),
        "done" => format!("{HEAD}<title>Done</title><h1>Results</h1>"),
        _ => format!("{HEAD}<title>Nothing</title>"),
    }
}
