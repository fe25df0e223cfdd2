/**
 * Domain events as typed values, decoded from libvirt's *_CALLBACK_* event messages. Pure: the payload of
 * one message in, the callback it belongs to and the event out.
 */
import {
  AGENT_LIFECYCLE_REASONS,
  AGENT_LIFECYCLE_STATES,
  DOMAIN_EVENT_DETAILS,
  DOMAIN_EVENT_ID,
  DOMAIN_EVENT_TYPES,
  type DomainEventTypeName,
} from './constants.ts';
import { fromWire, type DomainRef } from './domain-ref.ts';
import { EVENT_MSG, EVENT_PROC } from './procedures.ts';
import { decode } from './xdr.ts';

interface LifecycleEvent {
  kind: 'lifecycle';
  domain: DomainRef;
  /** 'defined', 'started', 'suspended', 'resumed', 'stopped', ... ('unknown' for a number we do not know). */
  event: DomainEventTypeName | 'unknown';
  /** The detail for that event type: 'booted', 'paused', 'unpaused', 'destroyed', 'crashed', ... */
  detail: string;
  eventCode: number;
  detailCode: number;
}

interface DeviceEvent {
  kind: 'device-removed' | 'device-added' | 'device-removal-failed';
  domain: DomainRef;
  /** The device alias, e.g. 'ua-disk1' or 'virtio-serial1'. */
  alias: string;
}

interface AgentLifecycleEvent {
  kind: 'agent-lifecycle';
  domain: DomainRef;
  state: 'connected' | 'disconnected' | 'unknown';
  /** 'unknown', 'domain_started' or 'channel'. */
  reason: string;
  stateCode: number;
  reasonCode: number;
}

interface RebootEvent {
  kind: 'reboot';
  domain: DomainRef;
}

export type DomainEvent = LifecycleEvent | DeviceEvent | AgentLifecycleEvent | RebootEvent;
export type DomainEventKind = DomainEvent['kind'];

export interface DecodedEvent {
  callbackID: number;
  event: DomainEvent;
}

interface KindSpec {
  /** virDomainEventID to register. */
  eventId: number;
  /** Procedure number of its event message. */
  procedure: number;
  decode(payload: Uint8Array): DecodedEvent;
}

function lifecycle(payload: Uint8Array): DecodedEvent {
  const { callbackID, msg } = decode(EVENT_MSG.lifecycle, payload);
  const event = DOMAIN_EVENT_TYPES[msg.event] ?? 'unknown';
  const details = event === 'unknown' ? [] : DOMAIN_EVENT_DETAILS[event];
  return {
    callbackID,
    event: {
      kind: 'lifecycle',
      domain: fromWire(msg.dom),
      event,
      detail: details[msg.detail] ?? 'unknown',
      eventCode: msg.event,
      detailCode: msg.detail,
    },
  };
}

function agentLifecycle(payload: Uint8Array): DecodedEvent {
  const m = decode(EVENT_MSG.agentLifecycle, payload);
  return {
    callbackID: m.callbackID,
    event: {
      kind: 'agent-lifecycle',
      domain: fromWire(m.dom),
      state: AGENT_LIFECYCLE_STATES[m.state] ?? 'unknown',
      reason: AGENT_LIFECYCLE_REASONS[m.reason] ?? 'unknown',
      stateCode: m.state,
      reasonCode: m.reason,
    },
  };
}

export const EVENT_KINDS: Readonly<Record<DomainEventKind, KindSpec>> = {
  lifecycle: { eventId: DOMAIN_EVENT_ID.LIFECYCLE, procedure: EVENT_PROC.lifecycle, decode: lifecycle },
  reboot: {
    eventId: DOMAIN_EVENT_ID.REBOOT,
    procedure: EVENT_PROC.reboot,
    decode: (p) => {
      const m = decode(EVENT_MSG.reboot, p);
      return { callbackID: m.callbackID, event: { kind: 'reboot', domain: fromWire(m.msg.dom) } };
    },
  },
  'device-removed': {
    eventId: DOMAIN_EVENT_ID.DEVICE_REMOVED,
    procedure: EVENT_PROC.deviceRemoved,
    decode: (p) => {
      const m = decode(EVENT_MSG.deviceRemoved, p);
      const event: DeviceEvent = {
        kind: 'device-removed',
        domain: fromWire(m.msg.dom),
        alias: m.msg.devAlias,
      };
      return { callbackID: m.callbackID, event };
    },
  },
  'device-added': {
    eventId: DOMAIN_EVENT_ID.DEVICE_ADDED,
    procedure: EVENT_PROC.deviceAdded,
    decode: (p) => {
      const m = decode(EVENT_MSG.deviceAdded, p);
      const event: DeviceEvent = { kind: 'device-added', domain: fromWire(m.dom), alias: m.devAlias };
      return { callbackID: m.callbackID, event };
    },
  },
  'device-removal-failed': {
    eventId: DOMAIN_EVENT_ID.DEVICE_REMOVAL_FAILED,
    procedure: EVENT_PROC.deviceRemovalFailed,
    decode: (p) => {
      const m = decode(EVENT_MSG.deviceRemovalFailed, p);
      const event: DeviceEvent = {
        kind: 'device-removal-failed',
        domain: fromWire(m.dom),
        alias: m.devAlias,
      };
      return { callbackID: m.callbackID, event };
    },
  },
  'agent-lifecycle': {
    eventId: DOMAIN_EVENT_ID.AGENT_LIFECYCLE,
    procedure: EVENT_PROC.agentLifecycle,
    decode: agentLifecycle,
  },
};
