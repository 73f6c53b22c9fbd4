//! The nested-documents suite, one body for both adapters (`ghostlight-webdriver/tests/
//! nested_documents.rs`, `ghostlight-extension/tests/nested_documents.rs`): documents the gate
//! must judge although their URL names no host of their own, and every kind of nested browsing
//! context.
//!
//! - a frame of a denied host that navigates itself to `data:` (and one that writes an
//!   `about:blank` frame of its own) stays denied: its text is not read, its controls are
//!   neither perceived nor found, it is blanked in captures, and pointer input at its pixels
//!   is refused;
//! - a denied page inside `<object>` or `<embed>` is blanked in captures and pointer input at
//!   its pixels is refused, as for an `<iframe>`;
//! - an `about:srcdoc` frame of the page itself is governed as the page (read and perceived).
//!
//! The port is used bare (no network authority: the denied host's pages load, as they would
//! for a browser the wire is not governed for), with the executor's own gate: an
//! `AuthoritySnapshot` denying 127.0.0.2, its `admits_document` as the predicate.

use std::time::Duration;

use ghostlight_core::port::{
    BrowserPort, CaptureKind, ClickInput, Gate, MouseButton, PerceiveInput, PerceiveScope, Perception,
    PointerTarget, PortErrorKind, ReadInput, TabCall, TextMode,
};
use ghostlight_core::{AuthorityLayers, Restrictions, Settings};
use ghostlight_webdriver::Engine;
use serde_json::json;

use crate::support::engines::scenario;
use crate::support::port::{STEP_TIMEOUT, centre_of, eval, open};
use crate::support::server::{HOST_B, Reply, Site};

/// The site: pages on 127.0.0.1 that frame pages of 127.0.0.2 (which the gate denies).
fn site() -> Site {
    Site::serve(|ask| {
        let denied = format!("http://{HOST_B}:{}", ask.ports[1]);
        let frame = "style=\"width:300px;height:150px;border:0;display:block\"";
        let body = match ask.path {
            "/self-data" => format!(
                "<button>Outer</button><iframe id=f {frame} src=\"{denied}/goes-data\"></iframe>\
                 <iframe id=s {frame} srcdoc=\"<button>Own srcdoc</button>\"></iframe>"
            ),
            "/goes-data" => "<script>location.replace('data:text/html,<body style=\"margin:0;background:%23f00\">\
                <button>Leaked data</button><input aria-label=Leaky><script>document.querySelector(\\'input\\').focus()<\\/script>')</script>"
                .to_owned(),
            "/writes-blank" => "<body style=margin:0><iframe id=inner style=\"width:280px;height:120px;border:0\"></iframe>\
                <script>const d = document.getElementById('inner').contentDocument; d.open(); \
                d.write('<body style=\"margin:0;background:#f00\"><button>Leaked blank</button>'); d.close();</script>"
                .to_owned(),
            "/self-blank" => format!("<button>Outer</button><iframe id=f {frame} src=\"{denied}/writes-blank\"></iframe>"),
            "/red" => "<body style=\"margin:0;background:#f00\"><button>Leaked object</button>".to_owned(),
            "/object" => format!("<button>Outer</button><object id=o {frame} type=text/html data=\"{denied}/red\"></object>"),
            "/embed" => format!("<button>Outer</button><embed id=o {frame} type=text/html src=\"{denied}/red\">"),
            "/stall" => format!(
                "<p>Outer text</p><iframe {frame} src=\"{denied}/spoof\"></iframe><script>\
                 let spins = 0;\
                 function spin() {{ const end = Date.now() + 2500; while (Date.now() < end) {{}} if (++spins < 6) setTimeout(spin, 5); }}\
                 setTimeout(spin, 300);</script>"
            ),
            "/spoof" => format!(
                "<script>const claimed = 'http://127.0.0.1:{}/stall';\
                 Object.defineProperty(Document.prototype, 'URL', {{ get() {{ return claimed; }} }});\
                 Object.defineProperty(Document.prototype, 'documentURI', {{ get() {{ return claimed; }} }});</script>\
                 <body style=\"margin:0;background:#f00\"><p>Leaked spoof</p><button>Leaked button</button>",
                ask.ports[0]
            ),
            "/transformed" => format!(
                "<div style=\"transform: scale(1.5); transform-origin: 0 0\">\
                 <iframe id=scaled style=\"width:200px;height:100px;border:0;display:block\" src=\"{denied}/red\"></iframe></div>\
                 <div style=\"position: absolute; left: 420px; top: 60px; rotate: 45deg\">\
                 <iframe id=turned style=\"width:200px;height:100px;border:0;display:block\" src=\"{denied}/red\"></iframe></div>"
            ),
            "/aim" => AIM.to_owned(),
            "/scaled-holder" => "<div style=\"transform: scale(0.5); transform-origin: 0 0\">\
                 <iframe style=\"width:600px;height:400px;border:0;display:block\" src=\"/holder\"></iframe></div>"
                .to_owned(),
            "/holder" => format!(
                "<div style=\"height:200px\"></div>\
                 <iframe style=\"display:block;margin-left:200px;width:400px;height:200px;border:0\" src=\"{denied}/red\"></iframe>"
            ),
            "/wrapped" => format!(
                "<script>window.__log = [];</script>\
                 <div role=button aria-label=Wrapper style=\"width:300px\" onclick=\"__log.push('Wrapper')\"><iframe {frame} src=\"{denied}/red\"></iframe></div>\
                 <div role=button aria-label=\"Own wrapper\" style=\"width:300px\" onclick=\"__log.push('Own')\"><iframe {frame} srcdoc=\"<p>Own</p>\"></iframe></div>\
                 <div role=button aria-label=\"Nesting wrapper\" style=\"width:300px\" onclick=\"__log.push('Nesting')\"><iframe {frame} \
                 srcdoc=\"<body style=margin:0><iframe style='width:300px;height:150px;border:0;display:block' src='{denied}/red'></iframe>\"></iframe></div>"
            ),
            inner if inner.starts_with("/aim-") => {
                let name = inner.trim_start_matches("/aim-");
                format!("<div style=\"height:90px\"></div><button style=\"margin-left:40px\" onclick=\"top.__log.push('{name}')\">{name}</button>")
            }
            _ => "not found".to_owned(),
        };
        Reply::html(
            200,
            format!(
                "<!doctype html><html><head><meta charset=utf-8><title>t</title></head><body style=margin:0>{body}</body></html>"
            ),
        )
    })
}

/// Frames pointer input is aimed into from the top document: bordered and padded, moved,
/// scaled (drawn at half size), covered by the page, and rotated.
const AIM: &str = "<script>window.__log = [];</script>\
<style>iframe { display: block; width: 300px; height: 160px; margin: 8px }</style>\
<iframe src=\"/aim-Padded\" style=\"border: 6px solid; padding: 10px\"></iframe>\
<div style=\"transform: translate(30px, 10px)\"><iframe src=\"/aim-Moved\"></iframe></div>\
<div style=\"transform: scale(0.5); transform-origin: 0 0; height: 90px\"><iframe src=\"/aim-Scaled\"></iframe></div>\
<div style=\"position: relative\"><iframe src=\"/aim-Under\"></iframe>\
<div aria-label=\"Page cover\" style=\"position: absolute; inset: 0; background: rgba(0,0,0,.2)\"></div></div>\
<div style=\"height: 120px\"></div><div style=\"rotate: 8deg\"><iframe src=\"/aim-Turned\"></iframe></div>\
<div style=\"height: 1500px\"></div>";

/// The executor's gate for an authority that denies 127.0.0.2.
fn gate() -> Gate {
    let user: Settings = serde_json::from_value(json!({"hosts": {"deny": [HOST_B]}})).expect("settings");
    let snapshot =
        AuthorityLayers { user: Some(user), organization: None }.compile().snapshot(&Restrictions::default());
    Gate::new(move |url| snapshot.admits_document(url))
}

/// The RGB of the capture's pixel at CSS point `(x, y)`.
async fn pixel_at(
    b: &dyn BrowserPort,
    tab: &ghostlight_core::port::TabRef,
    gate: &Gate,
    x: f64,
    y: f64,
) -> [u8; 3] {
    let shot =
        b.capture(&TabCall::new(tab, gate, STEP_TIMEOUT), &CaptureKind::Viewport).await.expect("a capture");
    let image =
        image::load_from_memory_with_format(&shot.png, image::ImageFormat::Png).expect("a PNG").to_rgb8();
    let (px, py) = ((x / shot.css_per_pixel) as u32, (y / shot.css_per_pixel) as u32);
    image.get_pixel(px.min(image.width() - 1), py.min(image.height() - 1)).0
}

/// A primary click on the element `perceived` names `name`.
fn click_on(perceived: &Perception, name: &str) -> ClickInput {
    let found = perceived.elements.iter().find(|e| e.name.as_deref() == Some(name));
    let element = found.unwrap_or_else(|| panic!("{name} is perceived")).element.clone();
    ClickInput {
        at: PointerTarget::Element(element),
        button: MouseButton::Primary,
        count: 1,
        modifiers: Vec::new(),
    }
}

/// Run the suite on `b`, a bare port of `engine`; `trusted_input`: whether the port sends
/// pointer input (where it does not, a click at a point answers `unsupported` or the refusal).
pub(crate) async fn run_all(engine: Engine, b: &dyn BrowserPort, trusted_input: bool) {
    let site = site();
    let g = gate();
    let all = PerceiveInput { scope: PerceiveScope::All, max_items: 200 };
    let visible = ReadInput { mode: TextMode::Visible, target: None, max_chars: 8_000 };
    for (path, secret, element) in [
        ("/self-data", "Leaked data", "document.getElementById('f')"),
        ("/self-blank", "Leaked blank", "document.getElementById('f')"),
        ("/object", "Leaked object", "document.getElementById('o')"),
        ("/embed", "Leaked object", "document.getElementById('o')"),
    ] {
        scenario(engine, &format!("{path}: nothing of the denied document reaches the model"), async {
            let tab = open(b, &site, path).await;
            // Let the denied frame navigate itself (or write its child) first.
            tokio::time::sleep(Duration::from_millis(500)).await;
            let perceived = b.perceive(&TabCall::reading(&tab, &g), &all).await.expect("perceive");
            let names: Vec<String> = perceived.elements.iter().filter_map(|e| e.name.clone()).collect();
            assert!(names.iter().any(|n| n == "Outer"), "{names:?}");
            assert!(!names.iter().any(|n| n.contains("Leak")), "{path}: perceived {names:?}");
            let text = b.read_text(&TabCall::reading(&tab, &g), &visible).await.expect("read");
            assert!(!text.text.contains("Leak"), "{path}: read {:?}", text.text);
            let found = b
                .perceive(&TabCall::reading(&tab, &g), &PerceiveInput::matching(secret, false, 10))
                .await
                .map(|found| found.elements)
                .expect("find");
            assert!(found.is_empty(), "{path}: found {found:?}");
            assert!(
                !b.text_present(&TabCall::reading(&tab, &g), secret).await.expect("text_present"),
                "{path}"
            );
            // Focus inside the denied document: the frames it sits in name one the gate refuses
            // (so keys are never sent there).
            if path == "/self-data" {
                let _ = b
                    .execute(
                        &TabCall::new(&tab, &Gate::open(), STEP_TIMEOUT),
                        "document.getElementById('f').focus(); 0",
                    )
                    .await;
                if let Ok(Some(focused)) = b.focused_element(&tab).await {
                    assert!(
                        focused.frames.iter().any(|url| !g.admits(url)),
                        "{path}: focus frames {:?}",
                        focused.frames
                    );
                }
            }
            let centre = centre_of(b, &tab, element).await;
            assert_eq!(
                pixel_at(b, &tab, &g, centre.x, centre.y).await,
                [128, 128, 128],
                "{path}: not blanked"
            );
            let click = ClickInput {
                at: PointerTarget::Point(centre),
                button: MouseButton::Primary,
                count: 1,
                modifiers: Vec::new(),
            };
            let refused = b
                .click(&TabCall::new(&tab, &g, STEP_TIMEOUT), &click)
                .await
                .expect_err("a click into it is refused");
            // Where the port sends no pointer input, the refusal may come as `unsupported`.
            let refusals: &[PortErrorKind] = if trusted_input {
                &[PortErrorKind::OutsideAuthority]
            } else {
                &[PortErrorKind::OutsideAuthority, PortErrorKind::Unsupported]
            };
            assert!(refusals.contains(&refused.kind()), "{path}: {refused:?}");
            b.close_tab(&tab).await.expect("close");
        })
        .await;
    }
    scenario(engine, "a denied frame drawn scaled or rotated is blanked where it is drawn", async {
        let tab = open(b, &site, "/transformed").await;
        // Let the denied frames load (a frame still blank has the page's origin).
        tokio::time::sleep(Duration::from_millis(500)).await;
        // The scaled frame is drawn over (0, 0)–(300, 150); its layout box is 200 × 100.
        for (x, y) in [(100.0, 50.0), (250.0, 125.0)] {
            assert_eq!(pixel_at(b, &tab, &g, x, y).await, [128, 128, 128], "scaled, at ({x}, {y})");
        }
        let centre = centre_of(b, &tab, "document.getElementById('turned')").await;
        assert_eq!(pixel_at(b, &tab, &g, centre.x, centre.y).await, [128, 128, 128], "rotated");
        b.close_tab(&tab).await.expect("close");
    })
    .await;
    scenario(
        engine,
        "a denied frame inside a scaled frame of the page is blanked where it is drawn",
        async {
            // The page's own frame is drawn at half size; the denied frame inside it at (200, 200)
            // of the frame's viewport is drawn at (100, 100)–(300, 200) of the page's.
            let tab = open(b, &site, "/scaled-holder").await;
            tokio::time::sleep(Duration::from_millis(500)).await;
            for (x, y) in [(150.0, 150.0), (280.0, 190.0)] {
                assert_eq!(
                    pixel_at(b, &tab, &g, x, y).await,
                    [128, 128, 128],
                    "the denied frame at ({x}, {y})"
                );
            }
            assert_ne!(pixel_at(b, &tab, &g, 50.0, 50.0).await, [128, 128, 128], "the page's own frame");
            b.close_tab(&tab).await.expect("close");
        },
    )
    .await;
    scenario(engine, "a denied frame claiming the page's URL while the page stalls its checks", async {
        // The page keeps its main thread busy, 2.5 s at a time 5 ms apart, six times: a
        // command that waited for it runs in a gap, and the next one, sent a moment later,
        // waits again. Checks made where the frame cannot reach them must then wait or give
        // up; none may fall back to asking the frame itself, which claims the page's own URL
        // (before 2026-12-07, the WebDriver adapter did, and read "Leaked spoof").
        let tab = open(b, &site, "/stall").await;
        tokio::time::sleep(Duration::from_millis(500)).await;
        for _ in 0..3 {
            let text = b.read_text(&TabCall::reading(&tab, &g), &visible).await;
            eprintln!(
                "  read: {:?}",
                text.as_ref().map(|t| (t.text.len(), t.truncated)).map_err(|e| e.kind())
            );
            let text = text.map(|t| t.text).unwrap_or_default();
            assert!(!text.contains("Leaked"), "read {text:?}");
            let perceived = b.perceive(&TabCall::reading(&tab, &g), &all).await;
            let names: Vec<String> = perceived
                .map(|p| p.elements.into_iter().filter_map(|e| e.name).collect())
                .unwrap_or_default();
            assert!(!names.iter().any(|n| n.contains("Leaked")), "perceived {names:?}");
        }
        let centre = centre_of(b, &tab, "document.querySelector('iframe')").await;
        assert_eq!(pixel_at(b, &tab, &g, centre.x, centre.y).await, [128, 128, 128], "the frame is blanked");
        b.close_tab(&tab).await.expect("close");
    })
    .await;
    if trusted_input {
        scenario(
            engine,
            "pointer input lands in padded, moved and scaled frames; covered and rotated are refused",
            async {
                let tab = open(b, &site, "/aim").await;
                // (A frame's document may still be loading when the page answers: perceived
                // until every button is there.)
                let names = ["Padded", "Moved", "Scaled", "Under", "Turned"];
                let deadline = std::time::Instant::now() + Duration::from_secs(10);
                let perceived = loop {
                    let perceived = b.perceive(&TabCall::reading(&tab, &g), &all).await.expect("perceive");
                    let seen =
                        |name: &str| perceived.elements.iter().any(|e| e.name.as_deref() == Some(name));
                    if names.iter().all(|name| seen(name)) || std::time::Instant::now() > deadline {
                        break perceived;
                    }
                    tokio::time::sleep(Duration::from_millis(100)).await;
                };
                let call = TabCall::new(&tab, &g, STEP_TIMEOUT);
                for name in ["Padded", "Moved", "Scaled"] {
                    b.click(&call, &click_on(&perceived, name))
                        .await
                        .unwrap_or_else(|e| panic!("{name}: {e:?}"));
                }
                assert_eq!(eval(b, &tab, "window.__log.join(',')").await, json!("Padded,Moved,Scaled"));
                let covered = b
                    .click(&call, &click_on(&perceived, "Under"))
                    .await
                    .expect_err("the page covers the frame");
                assert_eq!(covered.kind(), PortErrorKind::Obstructed, "{covered:?}");
                assert_eq!(
                    covered.obstruction().and_then(|by| by.name.clone()).as_deref(),
                    Some("Page cover")
                );
                let turned =
                    b.click(&call, &click_on(&perceived, "Turned")).await.expect_err("a rotated frame");
                assert_eq!(turned.kind(), PortErrorKind::Unsupported, "{turned:?}");
                assert_eq!(
                    eval(b, &tab, "window.__log.join(',')").await,
                    json!("Padded,Moved,Scaled"),
                    "nothing else clicked"
                );
                b.close_tab(&tab).await.expect("close");
            },
        )
        .await;
        scenario(
            engine,
            "an element holding a frame is clicked only where the frame's documents are admitted",
            async {
                // The click on an element lands in what is drawn at its centre: here a frame, whose
                // document (or the document inside it) the gate must admit like any other.
                let tab = open(b, &site, "/wrapped").await;
                tokio::time::sleep(Duration::from_millis(500)).await;
                let perceived = b.perceive(&TabCall::reading(&tab, &g), &all).await.expect("perceive");
                let call = TabCall::new(&tab, &g, STEP_TIMEOUT);
                for name in ["Wrapper", "Nesting wrapper"] {
                    let refused = b
                        .click(&call, &click_on(&perceived, name))
                        .await
                        .expect_err("a click into the denied frame");
                    assert_eq!(refused.kind(), PortErrorKind::OutsideAuthority, "{name}: {refused:?}");
                }
                b.click(&call, &click_on(&perceived, "Own wrapper"))
                    .await
                    .expect("the page's own srcdoc frame");
                assert_eq!(
                    eval(b, &tab, "window.__log.join(',')").await,
                    json!(""),
                    "the frames took the clicks"
                );
                b.close_tab(&tab).await.expect("close");
            },
        )
        .await;
    }
    scenario(engine, "an about:srcdoc frame of the page is the page's", async {
        let tab = open(b, &site, "/self-data").await;
        let perceived = b.perceive(&TabCall::reading(&tab, &g), &all).await.expect("perceive");
        let names: Vec<String> = perceived.elements.iter().filter_map(|e| e.name.clone()).collect();
        assert!(names.iter().any(|n| n == "Own srcdoc"), "{names:?}");
        b.close_tab(&tab).await.expect("close");
    })
    .await;
}
