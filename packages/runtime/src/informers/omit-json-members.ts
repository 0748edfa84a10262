/**
 * Drops members from the text of a watch event before it is parsed, so that `JSON.parse` neither builds nor
 * leaves as garbage the parts an informer's transform would drop at once (a Node's `status.images` is about
 * two thirds of its JSON). Used only where a member's name is unique in the object's schema and its value is an
 * array, so that the first `"<name>":[` in compact JSON can only be that member: an unescaped `"` cannot occur
 * inside a JSON string, and a string followed by `:` is a key. The transform still runs on the parsed object,
 * so an event left whole (formatted JSON, a name not found) caches the same object.
 */

/** Index just past the JSON array or object that starts at `start`, or -1 when the text ends first. */
function endOfValue(text: string, start: number): number {
  let depth = 0;
  for (let i = start, n = text.length; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // A string: on to its closing quote, the first one not escaped by an odd run of backslashes.
      let close = text.indexOf('"', i + 1);
      for (;;) {
        if (close < 0) return -1;
        let b = close - 1;
        while (text.charCodeAt(b) === 0x5c) b--;
        if ((close - 1 - b) % 2 === 0) break;
        close = text.indexOf('"', close + 1);
      }
      i = close;
    } else if (c === 0x5b || c === 0x7b) depth++;
    else if (c === 0x5d || c === 0x7d) {
      if (--depth === 0) return i + 1;
    }
  }
  return -1;
}

/**
 * `text` without the first member `"<name>":[…]` of each name in `names` (and its separating comma), or `text`
 * itself when a name is absent or its member is not in compact JSON (`,` or `{` before it, `,` or `}` after it).
 * Every member is looked up in `text` itself and the kept parts are joined once: searching a string already
 * joined would make V8 flatten (copy) it first.
 * @param names member names whose value is an array, each unique in the event's object (see the module doc).
 */
export function omitArrayMembers(text: string, names: readonly string[]): string {
  /** Each member found: where its key starts and where its value ends. */
  const members: [number, number][] = [];
  for (const name of names) {
    const key = `"${name}":[`;
    const at = text.indexOf(key);
    if (at < 0) continue;
    const end = endOfValue(text, at + key.length - 1);
    if (end < 0) continue;
    const before = text.charCodeAt(at - 1);
    const after = text.charCodeAt(end);
    if ((before === 0x2c || before === 0x7b) && (after === 0x2c || after === 0x7d)) members.push([at, end]);
  }
  if (members.length === 0) return text;
  members.sort((a, b) => a[0] - b[0]);
  let out = '';
  let from = 0;
  for (const [at, end] of members) {
    // A member after a comma that is still kept goes with that comma; a member first in its object (after `{`,
    // or after a comma its cut predecessor took) goes with the comma after it, if any.
    const leadingComma = text.charCodeAt(at - 1) === 0x2c && at - 1 >= from;
    const cutFrom = leadingComma ? at - 1 : Math.max(from, at);
    const cutTo = !leadingComma && text.charCodeAt(end) === 0x2c ? end + 1 : end;
    out += text.slice(from, cutFrom);
    from = cutTo;
  }
  return out + text.slice(from);
}
