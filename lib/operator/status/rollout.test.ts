import { describe, expect, it } from '@jest/globals';
import type { Component } from '../config/install-config.ts';
import { ABSENT, rolledOver, type ComponentObservation, type ComponentsObserved } from './components.ts';
import { rolloutGate, type RolloutGate, type RolloutVersions } from './rollout.ts';
import { isUpdatePath } from './semver.ts';
import { components, workload } from './testing/observations.ts';

const ALL: Component[] = ['virt-api', 'virt-controller', 'virt-handler'];
const nothing: ComponentsObserved = { 'virt-api': ABSENT, 'virt-controller': ABSENT, 'virt-handler': ABSENT };
const gate = (mayUpdate: Component[], waitingFor?: string): RolloutGate => ({
  mayUpdate: new Set(mayUpdate),
  ...(waitingFor !== undefined && { waitingFor }),
});
const rolling = (version: string, pods: number): ComponentObservation =>
  workload(version, pods, { updated: 0, ready: pods });

describe('rolloutGate', () => {
  it.each<[string, ComponentsObserved, RolloutVersions, RolloutGate]>([
    [
      'a fresh install: the api first',
      nothing,
      { target: 'v1' },
      gate(['virt-api'], 'virt-api: not created'),
    ],
    [
      'a fresh install, the api not ready yet: still the api alone',
      { ...nothing, 'virt-api': workload('v1', 2, { ready: 0 }) },
      { target: 'v1' },
      gate(['virt-api'], 'virt-api: 0 of 2 ready, 2 updated'),
    ],
    [
      'a fresh install, the api rolled over: the controller and the handler together',
      { ...nothing, 'virt-api': workload('v1', 2) },
      { target: 'v1' },
      gate(ALL, 'virt-controller: not created; virt-handler: not created'),
    ],
    ['everything rolled over', components('v1'), { target: 'v1', observed: 'v1' }, gate(ALL)],
    [
      'an update: the handler first',
      components('v1'),
      { target: 'v2', observed: 'v1' },
      gate(['virt-handler'], 'virt-handler: at v1'),
    ],
    [
      'an update, the handler rolling out: still the handler alone',
      components('v1', { 'virt-handler': rolling('v2', 3) }),
      { target: 'v2', observed: 'v1' },
      gate(['virt-handler'], 'virt-handler: 3 of 3 ready, 0 updated'),
    ],
    [
      'an update, the handler rolled over: then the controller',
      components('v1', { 'virt-handler': workload('v2', 3) }),
      { target: 'v2', observed: 'v1' },
      gate(['virt-handler', 'virt-controller'], 'virt-controller: at v1'),
    ],
    [
      'an update whose handler and controller are already at the target: the api',
      components('v2', { 'virt-api': workload('v1', 2) }),
      { target: 'v2', observed: 'v1' },
      gate(ALL, 'virt-api: at v1'),
    ],
    [
      'an update whose handler is at the target but not ready on one node: it holds the controller',
      components('v1', { 'virt-handler': workload('v2', 3, { ready: 2 }) }),
      { target: 'v2', observed: 'v1' },
      gate(['virt-handler'], 'virt-handler: 2 of 3 ready, 3 updated'),
    ],
    [
      'a move to a lower version takes the install order',
      components('v2'),
      { target: 'v1.0.0', observed: 'v2.0.0' },
      gate(['virt-api'], 'virt-api: at v2'),
    ],
    [
      'versions that are no semantic versions: an update',
      components('sha-a'),
      { target: 'sha-b', observed: 'sha-a' },
      gate(['virt-handler'], 'virt-handler: at sha-a'),
    ],
  ])('%s', (_name, observed, versions, expected) => {
    expect(rolloutGate(observed, versions)).toEqual(expected);
  });
});

describe('rolledOver (DeploymentIsReady, DaemonsetIsReady)', () => {
  it.each<[string, Component, ComponentObservation, boolean]>([
    ['a Deployment with one ready Pod', 'virt-api', workload('v1', 2, { ready: 1 }), true],
    ['a Deployment with none ready', 'virt-api', workload('v1', 2, { ready: 0 }), false],
    ['a Deployment with an old Pod left', 'virt-api', workload('v1', 2, { pods: 3 }), false],
    [
      'a Deployment whose controller has not seen its spec',
      'virt-api',
      workload('v1', 2, { current: false }),
      false,
    ],
    ['a Deployment at another version', 'virt-controller', workload('v0', 2), false],
    ['a Deployment scaled to zero', 'virt-controller', workload('v1', 0), false],
    ['a DaemonSet ready on every node', 'virt-handler', workload('v1', 3), true],
    ['a DaemonSet not ready on one node', 'virt-handler', workload('v1', 3, { ready: 2 }), false],
    ['a DaemonSet scheduled nowhere', 'virt-handler', workload('v1', 0), false],
    ['a workload not created', 'virt-handler', ABSENT, false],
  ])('%s: %s', (_name, component, observed, expected) => {
    expect(rolledOver(component, observed, 'v1')).toBe(expected);
  });
});

describe('isUpdatePath (shouldTakeUpdatePath)', () => {
  it.each<[string, string | undefined, boolean]>([
    ['v1.6.2', undefined, false],
    ['v1.6.2', '', false],
    ['v1.6.3', 'v1.6.2', true],
    ['1.7.0', 'v1.6.9', true],
    ['v1.6.2', 'v1.6.2', false],
    ['v1.6.1', 'v1.6.2', false],
    ['v1.6.2', 'v1.6.2-rc.1', true],
    ['v1.6.2-rc.10', 'v1.6.2-rc.9', true],
    ['v1.6.2-beta', 'v1.6.2-rc.1', false],
    ['v1.6.2-rc.1.1', 'v1.6.2-rc.1', true],
    ['v1.6.2+build.2', 'v1.6.2+build.1', false],
    ['v0.1.0', 'v1.6.2-v12n.92', false],
    ['1a2b3c4', '7f8e9d0', true],
    ['1a2b3c4', '1a2b3c4', true],
  ])('%s from %s: %s', (target, current, expected) => {
    expect(isUpdatePath(target, current)).toBe(expected);
  });
});
