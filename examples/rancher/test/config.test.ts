/**
 * Configuration from the environment (the original's only source) or the cloud-config file (the gcfg keys its
 * configGlobal declared), and the secret key kept out of every message and log line.
 */
import { RecordingLogger } from '@ccm-kit/testing';
import { describe, expect, it } from 'vitest';
import { RancherCloud, readRancherConfig } from '../src/index.js';

const FILE = `[Global]
cattle-url = http://127.0.0.1:8080/v2-beta
cattle-access-key = file-access
cattle-secret-key = file-secret-SHH
`;

describe('readRancherConfig', () => {
  it('reads CATTLE_URL, CATTLE_ACCESS_KEY and CATTLE_SECRET_KEY', () => {
    const env = { CATTLE_URL: 'http://127.0.0.1:1/v2-beta', CATTLE_ACCESS_KEY: 'a', CATTLE_SECRET_KEY: 's' };
    expect(readRancherConfig(undefined, env)).toEqual({ url: env.CATTLE_URL, accessKey: 'a', secretKey: 's' });
  });

  it('reads the [Global] keys of the cloud-config file; a variable that is set wins', () => {
    expect(readRancherConfig(FILE, {})).toEqual({
      url: 'http://127.0.0.1:8080/v2-beta',
      accessKey: 'file-access',
      secretKey: 'file-secret-SHH',
    });
    expect(readRancherConfig(FILE, { CATTLE_ACCESS_KEY: 'env-access', CATTLE_SECRET_KEY: '' })).toMatchObject({
      accessKey: 'env-access',
      secretKey: 'file-secret-SHH',
    });
  });

  it('lists every problem, naming the variable and the key', () => {
    expect(() => readRancherConfig(undefined, {})).toThrow(
      'rancher: CATTLE_URL is not set (or set cattle-url under [Global] in the cloud-config file); ' +
        'CATTLE_ACCESS_KEY is not set (or set cattle-access-key under [Global] in the cloud-config file); ' +
        'CATTLE_SECRET_KEY is not set (or set cattle-secret-key under [Global] in the cloud-config file)',
    );
    expect(() => readRancherConfig(`${FILE}cattle-token = x\n[Other]\na = b\n`, {})).toThrow(
      /unknown key "cattle-token" in \[Global\].*unknown section or key "Other"/,
    );
    expect(() => readRancherConfig(FILE.replace('http://', 'ftp://'), {})).toThrow(
      /the Cattle URL must start with http:\/\/ or https:\/\//,
    );
  });

  it('never puts the secret into an error or a log line', () => {
    const err = (() => {
      try {
        readRancherConfig(FILE.replace('http://', 'tcp://'), {});
      } catch (e) {
        return e as Error;
      }
    })();
    expect(err?.message).not.toContain('file-secret-SHH');
    const logger = new RecordingLogger();
    new RancherCloud(readRancherConfig(FILE, {}), { logger });
    expect(logger.records).toEqual([
      {
        level: 'info',
        msg: 'Using the Cattle API',
        fields: { url: 'http://127.0.0.1:8080/v2-beta', accessKey: 'file-access' },
      },
    ]);
    expect(JSON.stringify(logger.records)).not.toContain('SHH');
  });
});
