/**
 * kube-apiserver audit log for counting each CCM's API traffic the same way for both languages:
 * a Metadata-level policy (RequestReceived omitted), and a reader that counts one user's requests by
 * verb and resource, and by response code.
 */
import { createReadStream } from 'node:fs';
import { open, writeFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';

/** Every request at Metadata level; one event per request (ResponseStarted for watches). */
export const AUDIT_POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
  - level: Metadata
`;

export async function writeAuditPolicy(path: string): Promise<void> {
  await writeFile(path, AUDIT_POLICY);
}

/** A user's requests, from the audit log. */
export interface ApiTraffic {
  /** All requests (a watch counts once). */
  total: number;
  /** create/update/patch/delete. */
  writes: number;
  /** `"<verb> <resource>[/<subresource>]"` → count. */
  byVerbResource: Record<string, number>;
  /** HTTP status code → count. */
  byCode: Record<string, number>;
  conflicts: number;
  /** Responses >= 400 other than 409. */
  otherErrors: number;
  /** Unix ms of the last counted request (0 without one). */
  lastRequestMs: number;
}

interface AuditEvent {
  stage?: string;
  requestReceivedTimestamp?: string;
  verb?: string;
  user?: { username?: string };
  objectRef?: { resource?: string; subresource?: string };
  responseStatus?: { code?: number };
  requestURI?: string;
}

const WRITE_VERBS = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

export const emptyTraffic = (): ApiTraffic => ({
  total: 0,
  writes: 0,
  byVerbResource: {},
  byCode: {},
  conflicts: 0,
  otherErrors: 0,
  lastRequestMs: 0,
});

/**
 * Counts the requests of `username` in a JSON-lines audit log. A watch is counted at its
 * ResponseStarted stage (it may still be open when the log is read); other requests at ResponseComplete.
 * Only requests received in [`fromMs`, `beforeMs`) (Unix ms) count.
 */
export async function readApiTraffic(
  logPath: string,
  username: string,
  beforeMs = Infinity,
  fromMs = 0,
): Promise<ApiTraffic> {
  const out = emptyTraffic();
  const lines = createInterface({ input: createReadStream(logPath), crlfDelay: Infinity });
  for await (const line of lines) {
    if (line === '' || !line.includes(username)) continue;
    const ev = JSON.parse(line) as AuditEvent;
    if (ev.user?.username !== username) continue;
    const isWatch = ev.verb === 'watch';
    if (isWatch ? ev.stage !== 'ResponseStarted' : ev.stage !== 'ResponseComplete') continue;
    const at = Date.parse(ev.requestReceivedTimestamp ?? '');
    if (at >= beforeMs || at < fromMs) continue;
    out.lastRequestMs = Math.max(out.lastRequestMs, at);
    const verb = ev.verb ?? '?';
    const resource = ev.objectRef?.resource
      ? `${ev.objectRef.resource}${ev.objectRef.subresource ? `/${ev.objectRef.subresource}` : ''}`
      : (ev.requestURI ?? '?').split('?')[0]!;
    const key = `${verb} ${resource}`;
    out.byVerbResource[key] = (out.byVerbResource[key] ?? 0) + 1;
    out.total++;
    if (WRITE_VERBS.has(verb)) out.writes++;
    const code = ev.responseStatus?.code ?? 0;
    out.byCode[code] = (out.byCode[code] ?? 0) + 1;
    if (code === 409) out.conflicts++;
    else if (code >= 400) out.otherErrors++;
  }
  return out;
}

/**
 * Waits until `username` has made no request for `quietMs` (its events stop growing in the audit log),
 * or `maxMs` passed. Returns the ms waited. Reads the log incrementally.
 */
export async function waitForQuiet(logPath: string, username: string, quietMs: number, maxMs: number): Promise<number> {
  const started = Date.now();
  const needle = `"username":"${username}"`;
  const fh = await open(logPath, 'r');
  try {
    let offset = 0;
    let tail = '';
    let lastActivity = Date.now();
    const buf = Buffer.alloc(1 << 20);
    for (;;) {
      let grew = false;
      for (;;) {
        const { bytesRead } = await fh.read(buf, 0, buf.length, offset);
        if (bytesRead === 0) break;
        offset += bytesRead;
        const text = tail + buf.subarray(0, bytesRead).toString('utf8');
        const cut = text.lastIndexOf('\n');
        tail = text.slice(cut + 1);
        if (text.slice(0, cut + 1).includes(needle)) grew = true;
      }
      const now = Date.now();
      if (grew) lastActivity = now;
      if (now - lastActivity >= quietMs || now - started >= maxMs) return now - started;
      await new Promise((r) => setTimeout(r, 200));
    }
  } finally {
    await fh.close();
  }
}
