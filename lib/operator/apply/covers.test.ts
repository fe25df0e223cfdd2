import { describe, expect, it } from '@jest/globals';
import { covers } from './covers.ts';

const deployment = {
  metadata: { name: 'virt-api', labels: { 'kubevirt.io': 'virt-api' } },
  spec: {
    replicas: 2,
    template: { spec: { containers: [{ name: 'virt-api', args: ['api', '--port', '8443'] }] } },
  },
};
/** What the API server hands back: defaults, identity and status added. */
const live = {
  metadata: { ...deployment.metadata, uid: 'u1', resourceVersion: '7', generation: 3 },
  spec: {
    ...deployment.spec,
    strategy: { type: 'RollingUpdate' },
    template: {
      spec: {
        containers: [{ name: 'virt-api', args: ['api', '--port', '8443'], terminationMessagePath: '/dev/x' }],
        restartPolicy: 'Always',
      },
    },
  },
  status: { readyReplicas: 2 },
};

describe('covers', () => {
  it.each<[string, unknown, boolean]>([
    ['the object as the server returns it', live, true],
    ['replicas changed by hand', { ...live, spec: { ...live.spec, replicas: 1 } }, false],
    ['a label removed', { ...live, metadata: { ...live.metadata, labels: {} } }, false],
    [
      'a container added by hand',
      {
        ...live,
        spec: {
          ...live.spec,
          template: { spec: { containers: [...live.spec.template.spec.containers, { name: 'x' }] } },
        },
      },
      false,
    ],
    [
      'an argument changed',
      {
        ...live,
        spec: {
          ...live.spec,
          template: { spec: { containers: [{ name: 'virt-api', args: ['api', '--port', '9'] }] } },
        },
      },
      false,
    ],
    ['the object gone', undefined, false],
  ])('%s → %s', (_, l, want) => {
    expect(covers(l, deployment)).toBe(want);
  });

  it.each<[string, unknown, unknown, boolean]>([
    ['an empty map the server dropped', {}, { securityContext: {} }, true],
    ['an empty list the server dropped', {}, { tolerations: [] }, true],
    ['a number is not the same string', { port: '443' }, { port: 443 }, false],
    ['an undefined desired field is ignored', { a: 1 }, { a: 1, b: undefined }, true],
    ['null is a value', { a: null }, { a: null }, true],
  ])('%s', (_, l, d, want) => {
    expect(covers(l, d)).toBe(want);
  });
});
