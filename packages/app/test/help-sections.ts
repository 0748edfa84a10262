/**
 * Reads a `--help` page as spf13/pflag prints it (k8s.io/component-base `cliflag.PrintSections`): sections
 * `<Name> flags:`, one entry per flag with its name column, usage (continuation lines joined with `\n`) and the
 * trailing `(default …)` split off.
 */

/** One flag of a help page. */
export interface HelpFlag {
  section: string;
  name: string;
  shorthand: string;
  /** The value type shown after the name (`int32`, `duration`, `version[=true]`), empty for booleans. */
  type: string;
  usage: string;
  /** The `(default …)` text, or undefined when the help prints none. */
  default: string | undefined;
}

const FLAG_LINE = /^ {2}(?:-(\w), | {4})--([\w-]+)(?: (\S+))? {3,}(.*)$/;

/** The flags of a help page by name. */
export function parseHelp(text: string): Map<string, HelpFlag> {
  const out = new Map<string, HelpFlag>();
  let section = '';
  let last: HelpFlag | undefined;
  for (const line of text.split('\n')) {
    const header = /^(\S.*) flags:$/.exec(line);
    if (header) {
      section = header[1]!;
      last = undefined;
      continue;
    }
    const m = FLAG_LINE.exec(line);
    if (m && section) {
      last = { section, name: m[2]!, shorthand: m[1] ?? '', type: m[3] ?? '', usage: m[4]!, default: undefined };
      out.set(last.name, last);
    } else if (last && line.trim() !== '') {
      last.usage += `\n${line.trimStart()}`;
    } else {
      last = undefined;
    }
  }
  for (const f of out.values()) {
    const d = / \(default (.*)\)$/s.exec(f.usage);
    if (d) {
      f.default = d[1];
      f.usage = f.usage.slice(0, d.index);
    }
  }
  return out;
}
