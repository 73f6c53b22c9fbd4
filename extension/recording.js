// Ghostlight extension: recordings (`browser_record`), owned here.
//
// Loaded right after background.js: by the `importScripts` at the end of background.js in
// Chromium's service worker, and listed after it in `background.scripts` on Firefox. It adds
// its operations to background.js's `OPS`; the helpers it calls (`GlError`, `getTab`, `mark`,
// `sleep`) are background.js's; `glFrameUrl` is this file's.
//
// A recording lives in this background's memory only: its id, its frames (each one downscaled,
// quantized to a fixed 252-colour palette and LZW-compressed as it is captured, so a frame
// takes what it will take in the GIF), its bounds (sent by the server with `record_start`),
// its capture and retention deadlines, its stop, its erase and its encode. Frames and replays
// are never written to `storage`, logged, or saved anywhere but by a download the server asks
// for; only a client save carries the GIF out, in the answer. When the background restarts
// (Chromium's service worker going idle once no native port keeps it alive), every recording
// is lost and its id becomes unknown (`unknown_recording`).
//
// The server paces the capture and holds the gate (a predicate over URLs): every interval it
// asks `record_target` what the tab shows, judges it, and asks `record_frame` to capture that
// page (or to count it skipped). `record_start` selects the tab once (as a screenshot does);
// afterwards a tab that is not the active tab of its window is not captured and not counted:
// `tabs.captureVisibleTab` captures only the window's active tab, and selecting the tab every
// 500 ms would take the window from the person.
'use strict';

const GL_RECORDING = (() => {
  const recApi = globalThis.browser ?? globalThis.chrome;
  const PNG_PREFIX = 'data:image/png;base64,';
  /** A per-start prefix: an id from before a restart is unknown here, never another's. */
  const BOOT = Math.floor(Math.random() * 0x1000000).toString(16).padStart(6, '0');
  /** Chromium allows two visible-tab captures a second: a final frame waits this long once. */
  const CAPTURE_RETRY_MS = 600;
  /** The longest wait for the replay page to start a download. */
  const DOWNLOAD_WAIT_MS = 15000;
  /** How long the replay page stays open after its click (the download reads the Blob). */
  const DOWNLOAD_PAGE_GRACE_MS = 5000;
  /** The fixed palette: 6 levels of red, 7 of green, 6 of blue (252 colours; 4 spare, black). */
  const LEVELS_R = 6;
  const LEVELS_G = 7;
  const LEVELS_B = 6;

  const recordings = new Map();
  let next = 0;

  const unknown = () => new GlError('unknown_recording', 'the recording is unknown, discarded or past its retention');

  // ---- the palette, quantization and LZW -------------------------------------------------

  const PALETTE = (() => {
    const table = new Uint8Array(256 * 3);
    let i = 0;
    for (let r = 0; r < LEVELS_R; r += 1) {
      for (let g = 0; g < LEVELS_G; g += 1) {
        for (let b = 0; b < LEVELS_B; b += 1) {
          table[i] = Math.round((r * 255) / (LEVELS_R - 1));
          table[i + 1] = Math.round((g * 255) / (LEVELS_G - 1));
          table[i + 2] = Math.round((b * 255) / (LEVELS_B - 1));
          i += 3;
        }
      }
    }
    return table;
  })();

  /** Per channel value, the nearest level times the level's stride in the palette. */
  const levelTable = (levels, stride) => {
    const table = new Uint8Array(256);
    for (let v = 0; v < 256; v += 1) table[v] = Math.round((v * (levels - 1)) / 255) * stride;
    return table;
  };
  const TO_R = levelTable(LEVELS_R, LEVELS_G * LEVELS_B);
  const TO_G = levelTable(LEVELS_G, LEVELS_B);
  const TO_B = levelTable(LEVELS_B, 1);

  /** RGBA pixels as palette indices. */
  function quantize(rgba) {
    const indices = new Uint8Array(rgba.length >> 2);
    for (let p = 0, i = 0; i < indices.length; i += 1, p += 4) {
      indices[i] = TO_R[rgba[p]] + TO_G[rgba[p + 1]] + TO_B[rgba[p + 2]];
    }
    return indices;
  }

  /** A growable byte buffer. */
  class Bytes {
    constructor(capacity) {
      this.data = new Uint8Array(Math.max(capacity, 16));
      this.length = 0;
    }

    push(byte) {
      if (this.length === this.data.length) {
        const grown = new Uint8Array(this.data.length * 2);
        grown.set(this.data);
        this.data = grown;
      }
      this.data[this.length] = byte;
      this.length += 1;
    }

    append(bytes) {
      for (let i = 0; i < bytes.length; i += 1) this.push(bytes[i]);
    }

    view() {
      return this.data.subarray(0, this.length);
    }
  }

  /**
   * 8-bit palette indices as GIF image data: the LZW minimum code size, then the codes packed
   * in sub-blocks of at most 255 bytes, then the empty sub-block. Variable-width codes from 9
   * to 12 bits; a clear code when the table is full.
   */
  function lzw(indices) {
    const MIN = 8;
    const CLEAR = 1 << MIN;
    const END = CLEAR + 1;
    const out = new Bytes((indices.length >> 2) + 64);
    out.push(MIN);
    let block = new Uint8Array(255);
    let used = 0;
    const flushBlock = () => {
      if (used === 0) return;
      out.push(used);
      out.append(block.subarray(0, used));
      used = 0;
    };
    let bits = 0;
    let held = 0;
    let width = MIN + 1;
    const emit = (code) => {
      bits |= code << held;
      held += width;
      while (held >= 8) {
        block[used] = bits & 0xff;
        used += 1;
        if (used === 255) flushBlock();
        bits >>>= 8;
        held -= 8;
      }
    };
    let table = new Map();
    let nextCode = END + 1;
    emit(CLEAR);
    if (indices.length === 0) {
      emit(END);
    } else {
      let prefix = indices[0];
      for (let i = 1; i < indices.length; i += 1) {
        const k = indices[i];
        const key = (prefix << 8) | k;
        const found = table.get(key);
        if (found !== undefined) {
          prefix = found;
          continue;
        }
        emit(prefix);
        if (nextCode === 4096) {
          emit(CLEAR);
          table = new Map();
          nextCode = END + 1;
          width = MIN + 1;
        } else {
          if (nextCode >= 1 << width) width += 1;
          table.set(key, nextCode);
          nextCode += 1;
        }
        prefix = k;
      }
      emit(prefix);
      emit(END);
    }
    if (held > 0) {
      block[used] = bits & 0xff;
      used += 1;
      if (used === 255) flushBlock();
    }
    flushBlock();
    out.push(0);
    return out.view().slice();
  }

  // ---- frames ------------------------------------------------------------------------------

  /** `width`×`height` scaled down (never up) within the bounds, at least 1×1 (as the server's). */
  function fit(width, height, bounds) {
    const w = Math.max(width, 1);
    const h = Math.max(height, 1);
    const scale = Math.min(bounds.max_frame_width / w, bounds.max_frame_height / h, 1);
    return [Math.max(1, Math.round(w * scale)), Math.max(1, Math.round(h * scale))];
  }

  /** A captured PNG (data URL), scaled to `size` (or within the bounds), as GIF image data. */
  async function shrink(dataUrl, size, bounds) {
    const blob = await (await fetch(dataUrl)).blob();
    const bitmap = await createImageBitmap(blob);
    try {
      const [width, height] = size ?? fit(bitmap.width, bitmap.height, bounds);
      const canvas = new OffscreenCanvas(width, height);
      const context = canvas.getContext('2d', { willReadFrequently: true });
      context.drawImage(bitmap, 0, 0, width, height);
      const rgba = context.getImageData(0, 0, width, height).data;
      return { data: lzw(quantize(rgba)), width, height };
    } finally {
      bitmap.close();
    }
  }

  /** The same bytes. */
  function same(a, b) {
    if (a.length !== b.length) return false;
    for (let i = 0; i < a.length; i += 1) if (a[i] !== b[i]) return false;
    return true;
  }

  /** Keep `frame` (captured at `at`) within the bounds; the limit reached, if any. */
  function keep(rec, frame, at) {
    rec.captured += 1;
    const last = rec.frames[rec.frames.length - 1];
    // An unchanged page is counted, not kept: the kept frame shows longer.
    if (last && same(last.data, frame.data)) return null;
    if (rec.width > 0 && (frame.width !== rec.width || frame.height !== rec.height)) return null;
    if (rec.frames.length >= rec.bounds.max_frames) return 'frame_limit';
    if (rec.frameBytes + frame.data.length > rec.bounds.max_frame_bytes) return 'byte_limit';
    rec.frameBytes += frame.data.length;
    rec.width = frame.width;
    rec.height = frame.height;
    rec.frames.push({ data: frame.data, at });
    return rec.frames.length >= rec.bounds.max_frames ? 'frame_limit' : null;
  }

  // ---- life: deadlines, stop, erase --------------------------------------------------------

  function forget(rec) {
    clearTimeout(rec.captureTimer);
    clearTimeout(rec.retentionTimer);
    rec.frames = [];
    rec.gif = null;
    if (recordings.get(rec.id) === rec) recordings.delete(rec.id);
  }

  /** Stop capturing for `reason` and arm the retention deadline. */
  function freeze(rec, reason) {
    if (rec.phase !== 'recording') return;
    rec.phase = 'stopped';
    rec.stopped = Date.now();
    rec.stopReason = reason;
    clearTimeout(rec.captureTimer);
    rec.retentionTimer = setTimeout(() => forget(rec), rec.bounds.retention_ms);
  }

  /** Apply deadlines a late timer has not applied yet. */
  function due(rec) {
    const now = Date.now();
    if (rec.phase === 'recording' && now >= rec.started + rec.bounds.time_limit_ms) freeze(rec, 'time_limit');
    if (rec.phase === 'stopped' && now >= rec.stopped + rec.bounds.retention_ms) forget(rec);
  }

  /** The live recording `id`. */
  function find(id) {
    const rec = recordings.get(String(id));
    if (rec) due(rec);
    if (!rec || recordings.get(rec.id) !== rec) throw unknown();
    return rec;
  }

  /** Run `work` when the recording's earlier work is done, on the recording if still live. */
  function exclusive(rec, work) {
    const run = rec.chain.then(() => {
      due(rec);
      if (recordings.get(rec.id) !== rec) throw unknown();
      return work();
    });
    rec.chain = run.catch(() => {});
    return run;
  }

  /** Stop `rec` (if recording) and encode its replay once: the GIF's bytes. */
  function saved(rec) {
    freeze(rec, 'requested');
    if (rec.frames.length === 0) throw new GlError('browser_error', 'the recording captured no frame', 'none');
    if (!rec.gif) rec.gif = encode(rec);
    return rec.gif;
  }

  /** Each kept frame's delay in 1/100 s: to the next frame, the last to the stop (≥ one interval). */
  function delays(rec, now) {
    const end = rec.stopped ?? now;
    const cs = (ms) => Math.min(0xffff, Math.max(rec.bounds.min_delay_cs, Math.floor((Math.max(ms, 0) + 5) / 10)));
    return rec.frames.map((frame, i) => {
      const following = rec.frames[i + 1];
      return following ? cs(following.at - frame.at) : cs(Math.max(end - frame.at, rec.bounds.interval_ms));
    });
  }

  function report(rec, state = null) {
    const now = Date.now();
    const stopped = rec.phase === 'stopped';
    const erased = state === 'discarded';
    return {
      recording: rec.id,
      state: state ?? (stopped ? 'stopped' : 'recording'),
      frames: erased ? 0 : rec.frames.length,
      captured_frames: rec.captured,
      skipped_frames: rec.skipped,
      bytes: erased ? 0 : rec.gif ? rec.gif.length : rec.frameBytes,
      duration_ms: delays(rec, now).reduce((sum, cs) => sum + cs * 10, 0),
      width: rec.width,
      height: rec.height,
      capture_deadline_ms: !erased && !stopped ? Math.max(0, rec.started + rec.bounds.time_limit_ms - now) : null,
      retention_deadline_ms: !erased && stopped ? Math.max(0, rec.stopped + rec.bounds.retention_ms - now) : null,
      stop_reason: rec.stopReason,
    };
  }

  // ---- capture -----------------------------------------------------------------------------

  /** The tab, or null once it is gone (capture then stops: `tab_closed`). */
  async function recordedTab(rec) {
    try {
      return await recApi.tabs.get(rec.tab);
    } catch (_) {
      freeze(rec, 'tab_closed');
      return null;
    }
  }

  const ownPage = (url) => typeof url === 'string' && url.startsWith(recApi.runtime.getURL(''));

  async function visibleTab(windowId, final) {
    try {
      return await recApi.tabs.captureVisibleTab(windowId, { format: 'png' });
    } catch (error) {
      if (!final) return null;
      await sleep(CAPTURE_RETRY_MS);
      return recApi.tabs.captureVisibleTab(windowId, { format: 'png' }).catch(() => null);
    }
  }

  /** One frame of the tab while it still shows `url` (judged by the server), active in its window. */
  async function grab(rec, url, final) {
    const tab = await recordedTab(rec);
    if (!tab || !tab.active || tab.url !== url) return;
    const at = Date.now();
    const dataUrl = await visibleTab(tab.windowId, final);
    if (typeof dataUrl !== 'string' || !dataUrl.startsWith(PNG_PREFIX)) return;
    const after = await recordedTab(rec);
    if (!after || !after.active || after.url !== url || after.windowId !== tab.windowId) return;
    let frame;
    try {
      frame = await shrink(dataUrl, rec.width > 0 ? [rec.width, rec.height] : null, rec.bounds);
    } catch (_) {
      return;
    }
    if (rec.phase !== 'recording' || recordings.get(rec.id) !== rec) return;
    const limit = keep(rec, frame, at);
    if (limit) freeze(rec, limit);
  }

  // ---- the replay --------------------------------------------------------------------------

  function word(out, value) {
    out.push(value & 0xff);
    out.push((value >> 8) & 0xff);
  }

  /** The kept frames as a looping GIF89a with one global palette and per-frame delays. */
  function encode(rec) {
    const total = rec.frames.reduce((sum, frame) => sum + frame.data.length + 20, 0) + 1024;
    if (total > rec.bounds.max_gif_bytes) {
      throw new GlError('browser_error', 'the replay is larger than the extension delivers', 'none');
    }
    const out = new Bytes(total);
    for (const c of 'GIF89a') out.push(c.charCodeAt(0));
    word(out, rec.width);
    word(out, rec.height);
    out.push(0xf7); // a global colour table of 256 entries, 8 bits per primary
    out.push(0);
    out.push(0);
    out.append(PALETTE);
    // NETSCAPE2.0: loop forever.
    out.append([0x21, 0xff, 0x0b]);
    for (const c of 'NETSCAPE2.0') out.push(c.charCodeAt(0));
    out.append([0x03, 0x01, 0x00, 0x00, 0x00]);
    const times = delays(rec, Date.now());
    rec.frames.forEach((frame, i) => {
      out.append([0x21, 0xf9, 0x04, 0x04]); // graphic control: leave in place, no transparency
      word(out, times[i]);
      out.append([0x00, 0x00]);
      out.push(0x2c);
      word(out, 0);
      word(out, 0);
      word(out, rec.width);
      word(out, rec.height);
      out.push(0x00);
      out.append(frame.data);
    });
    out.push(0x3b);
    return out.view().slice();
  }

  function base64(bytes) {
    let binary = '';
    const CHUNK = 0x8000;
    for (let i = 0; i < bytes.length; i += CHUNK) {
      binary += String.fromCharCode.apply(null, bytes.subarray(i, i + CHUNK));
    }
    return btoa(binary);
  }

  /**
   * Save the replay as a download, without the `downloads` permission: a blank extension page
   * of its own (`replay.html`, opened in the background, no opener) asks for the bytes, clicks
   * an `<a download>` on a Blob URL of them and is closed once the download has begun. No web
   * page's script ever holds the bytes.
   */
  async function download(rec) {
    const token = `${rec.id}:${Math.random().toString(36).slice(2)}`;
    const name = `ghostlight-replay-${rec.id}.gif`;
    let settle;
    const done = new Promise((resolve, reject) => {
      settle = { resolve, reject };
    });
    pendingDownloads.set(token, { bytes: rec.gif, name, settle });
    let tab = null;
    const late = setTimeout(() => settle.reject(new GlError('timeout', 'the download did not begin in time', 'unknown')), DOWNLOAD_WAIT_MS);
    try {
      tab = await recApi.tabs.create({ url: recApi.runtime.getURL(`replay.html#${encodeURIComponent(token)}`), active: false });
      await done;
    } finally {
      clearTimeout(late);
      pendingDownloads.delete(token);
      // Closing the page at once can cancel the download before the browser has read the
      // Blob (seen on Firefox): the page lives a little longer.
      if (tab) {
        const opened = tab.id;
        setTimeout(() => recApi.tabs.remove(opened).catch(() => {}), DOWNLOAD_PAGE_GRACE_MS);
      }
    }
  }

  /** Downloads waiting for their page: token → bytes, name, and the waiting save. */
  const pendingDownloads = new Map();

  /** The replay page asks for its bytes, then says the download began (or failed). */
  function onReplayMessage(message, sender, reply) {
    const own = sender.id === recApi.runtime.id && typeof sender.url === 'string' && sender.url.startsWith(recApi.runtime.getURL('replay.html'));
    if (!own || !message || typeof message.token !== 'string') return false;
    const pending = pendingDownloads.get(message.token);
    if (!pending) return false;
    if (message.type === 'replay_bytes') {
      reply({ data: base64(pending.bytes), name: pending.name });
    } else if (message.type === 'replay_done') {
      pending.settle.resolve();
      reply({});
    } else if (message.type === 'replay_failed') {
      pending.settle.reject(new GlError('browser_error', 'the browser refused the download', 'unknown'));
      reply({});
    }
    return false;
  }

  // ---- operations --------------------------------------------------------------------------

  const ops = {
    async record_start({ tab, bounds }) {
      const found = await getTab(tab);
      for (const rec of recordings.values()) due(rec);
      if (recordings.size >= Number(bounds.max_recordings)) {
        throw new GlError('browser_error', 'the browser already holds the most recordings it keeps; save or discard one first', 'none');
      }
      next += 1;
      const rec = {
        id: `recording-${BOOT}-${next}`,
        tab: found.id,
        bounds: { ...bounds },
        phase: 'recording',
        frames: [],
        captured: 0,
        skipped: 0,
        frameBytes: 0,
        width: 0,
        height: 0,
        started: Date.now(),
        stopped: null,
        stopReason: null,
        gif: null,
        chain: Promise.resolve(),
        captureTimer: null,
        retentionTimer: null,
      };
      rec.captureTimer = setTimeout(() => freeze(rec, 'time_limit'), rec.bounds.time_limit_ms);
      recordings.set(rec.id, rec);
      // Select the tab once, as a screenshot does, so there is something to capture; later
      // the person or the model may select another (capture then waits for it).
      if (!found.active) await recApi.tabs.update(found.id, { active: true }).catch(() => {});
      await mark(found.id);
      return report(rec);
    },

    async record_target({ recording }) {
      const rec = find(recording);
      if (rec.phase !== 'recording') return { recording: false, url: null, frames: null };
      const tab = await recordedTab(rec);
      if (!tab) return { recording: false, url: null, frames: null };
      if (!tab.active || typeof tab.url !== 'string' || ownPage(tab.url)) return { recording: true, url: null, frames: null };
      let frames = null;
      try {
        const results = await recApi.scripting.executeScript({ target: { tabId: tab.id, allFrames: true }, func: glFrameUrl });
        frames = results.filter((r) => r.frameId !== 0).map((r) => String(r.result ?? ''));
      } catch (_) {
        frames = null; // a page scripts cannot reach: its frames are unknown, so it is not kept
      }
      return { recording: true, url: tab.url, frames };
    },

    async record_frame({ recording, url, admitted, stop }) {
      const rec = find(recording);
      return exclusive(rec, async () => {
        if (rec.phase === 'recording' && typeof url === 'string') {
          if (admitted === true) {
            await grab(rec, url, stop === true);
          } else {
            rec.skipped += 1;
          }
        }
        if (stop === true) freeze(rec, 'requested');
        return report(rec);
      });
    },

    async record_status({ recording }) {
      return report(find(recording));
    },

    async record_save({ recording, delivery }) {
      const rec = find(recording);
      return exclusive(rec, async () => {
        saved(rec);
        if (delivery === 'download') {
          await download(rec);
          return report(rec);
        }
        if (delivery !== 'client') throw new GlError('unsupported', `no delivery ${String(delivery)}`);
        return { ...report(rec), gif: base64(rec.gif) };
      });
    },

    /**
     * Save for a file input: stop, encode once, and hold the replay (its base64 as JSON text)
     * under `key` for the server's next page call, which attaches it in the input's document.
     * The replay never leaves the browser.
     */
    async record_hold({ recording, key }) {
      const rec = find(recording);
      return exclusive(rec, async () => {
        holdStash(key, JSON.stringify(base64(saved(rec))));
        return report(rec);
      });
    },

    async record_discard({ recording }) {
      const rec = find(recording);
      freeze(rec, 'requested');
      const answer = report(rec, 'discarded');
      forget(rec);
      return answer;
    },
  };

  recApi.runtime.onMessage.addListener(onReplayMessage);

  Object.assign(OPS, ops);
  return { fit, quantize, lzw, encode };
})();

/** The document's URL (run in every frame of a recorded tab). */
function glFrameUrl() {
  return String(location.href);
}
