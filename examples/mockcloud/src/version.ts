/** The example's version, sent in the client's User-Agent. Keep in step with package.json. */
export const VERSION = '0.1.0';
