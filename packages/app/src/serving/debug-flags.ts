/**
 * `/debug/flags/v` (served with `--profiling`, the default): `PUT` a number to change the log verbosity at run
 * time. Follows k8s.io/apiserver `routes.DebugFlags` + `StringFlagPutHandler(logs.GlogSetter)`: plain-text
 * answers `successfully set klog.logging.verbosity to <v>`; 400 `failed set klog.logging.verbosity <v>: …` for a
 * bad value; 406 `unsupported http method` for anything but PUT.
 */
import type { IncomingMessage } from 'node:http';
import { setVerbosity } from '@ccm-kit/runtime';
import type { RouteHandler, RouteResponse } from './secure-server.js';

const MAX_BODY = 1024;

async function readBody(req: IncomingMessage): Promise<string> {
  let body = '';
  for await (const chunk of req) {
    body += String(chunk);
    if (body.length > MAX_BODY) throw new Error('request body too large');
  }
  return body;
}

const plain = (status: number, text: string): RouteResponse => ({
  status,
  body: `${text}\n`,
  contentType: 'text/plain',
});

/** The handler of `/debug/flags/v`. */
export const debugFlagsVerbosity: RouteHandler = async (req) => {
  if (req.method !== 'PUT') return plain(406, 'unsupported http method');
  let val: string;
  try {
    val = await readBody(req);
  } catch (err) {
    return plain(400, `error reading request body: ${(err as Error).message}`);
  }
  // klog Level.Set: strconv.ParseInt(value, 10, 32); the level is unsigned in practice.
  if (!/^[+-]?\d+$/.test(val) || Number(val) < 0 || Number(val) > 2 ** 31 - 1) {
    return plain(
      400,
      `failed set klog.logging.verbosity ${val}: strconv.ParseInt: parsing ${JSON.stringify(val)}: invalid syntax`,
    );
  }
  setVerbosity(Number(val));
  return plain(200, `successfully set klog.logging.verbosity to ${val}`);
};
