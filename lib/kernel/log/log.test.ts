import { describe, expect, it } from '@jest/globals';
import { KvError } from '../errors/errors.ts';
import { createLogger, memoryLogger } from './log.ts';

const JWT =
  'eyJhbGciOiJSUzI1NiIsImtpZCI6IiJ9.eyJpc3MiOiJrdWJlcm5ldGVzL3NlcnZpY2VhY2NvdW50In0.c2lnbmF0dXJlLWJ5dGVz';
const PEM = '-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49\n-----END PRIVATE KEY-----';

describe('logger verbosity', () => {
  it.each([
    [2, 0, true],
    [2, 2, true],
    [2, 3, false],
    [4, 4, true],
    [4, 5, false],
  ])('at verbosity %i, v(%i).enabled() is %s', (verbosity, n, want) => {
    const log = createLogger({ component: 't', verbosity, sink: () => undefined });
    expect(log.v(n).enabled()).toBe(want);
    expect(log.with({ a: 1 }).v(n).enabled()).toBe(want);
    expect(log.enabled()).toBe(true);
  });
});

describe('logger: no credential reaches a line', () => {
  it.each([
    ['a bearer token', new Error(`GET /api: server said Authorization: Bearer s3cr3t-t0ken`), 's3cr3t-t0ken'],
    ['a bearer token, lower case', 'echo: authorization=bearer s3cr3t-t0ken', 's3cr3t-t0ken'],
    ['a JSON authorization header', '{"headers":{"Authorization":"Basic dXNlcjpwYXNz"}}', 'dXNlcjpwYXNz'],
    ['a service-account JWT', new KvError('KV_ERR_STATUS', `token ${JWT} expired`), JWT.slice(0, 40)],
    ['a PEM block', new Error(`bad key:\n${PEM}`), 'MIGHAgEAMBMGByqGSM49'],
    ['a password in a URL', 'invalid server URL "https://admin:hunter2@h:6443"', 'hunter2'],
  ])('redacts %s in reason', (_name, reason, secret) => {
    const { log, lines } = memoryLogger();
    log.error('call failed', { reason });
    expect(JSON.stringify(lines)).not.toContain(secret);
    expect(lines[0]?.['reason']).toEqual(expect.stringContaining('[redacted]'));
  });

  it('redacts the stack too', () => {
    const { log, lines } = memoryLogger();
    const err = new Error('Authorization: Bearer s3cr3t-t0ken');
    log.error('main failed', { reason: err, stack: err.stack });
    expect(JSON.stringify(lines)).not.toContain('s3cr3t-t0ken');
    expect(lines[0]?.['stack']).toEqual(expect.stringContaining('Bearer [redacted]'));
  });

  it('leaves ordinary reasons alone', () => {
    const { log, lines } = memoryLogger();
    log.error('call failed', {
      reason: new KvError('KV_ERR_CONFIG', 'kubeconfig /k: not valid YAML (line 3, column 1)'),
    });
    expect(lines[0]?.['reason']).toBe('KV_ERR_CONFIG: kubeconfig /k: not valid YAML (line 3, column 1)');
  });
});
