/**
 * The libvirt procedures this client calls, each with its program, number (remote_protocol.x,
 * qemu_protocol.x) and the XDR schemas of its arguments and result; and the event messages it decodes.
 * Data only: field names and order follow the .x files.
 */
import { nonnullDomainCodec, QEMU_PROGRAM, REMOTE_PROGRAM } from './protocol.ts';
import * as x from './xdr.ts';

export interface Procedure<A, R> {
  readonly program: number;
  readonly procedure: number;
  readonly name: string;
  readonly args: x.Codec<A>;
  readonly ret: x.Codec<R>;
}

const remote = <A, R>(
  name: string,
  procedure: number,
  args: x.Codec<A>,
  ret: x.Codec<R>,
): Procedure<A, R> => ({
  program: REMOTE_PROGRAM,
  procedure,
  name: `REMOTE_PROC_${name}`,
  args,
  ret,
});

/** REMOTE_STRING_MAX */
const str = x.string(1024 * 1024);
const optStr = x.optional(str);
const dom = nonnullDomainCodec;
export type WireDomain = x.Infer<typeof dom>;

/** remote_typed_param: a field name and a value tagged with its virTypedParameterType. */
const typedParamCodec = x.struct({
  field: str,
  value: x.union<number | bigint | string>({
    1: x.int,
    2: x.uint,
    3: x.hyper,
    4: x.uhyper,
    5: x.double,
    6: x.int,
    7: str,
  }),
});
export type WireTypedParam = x.Infer<typeof typedParamCodec>;

const domOnly = x.struct({ dom });
const domFlags = x.struct({ dom, flags: x.uint });
const domXmlFlags = x.struct({ dom, xml: str, flags: x.uint });
const domRet = x.struct({ dom });
const mountpoints = x.struct({ dom, mountpoints: x.array(str, 256), flags: x.uint });
/** REMOTE_MIGRATE_COOKIE_MAX */
const cookie = x.opaque(4 * 1024 * 1024);

export const PROC = {
  connectOpen: remote('CONNECT_OPEN', 1, x.struct({ name: optStr, flags: x.uint }), x.empty),
  connectClose: remote('CONNECT_CLOSE', 2, x.empty, x.empty),
  connectGetVersion: remote('CONNECT_GET_VERSION', 4, x.empty, x.struct({ hvVer: x.uhyper })),
  connectGetCapabilities: remote('CONNECT_GET_CAPABILITIES', 7, x.empty, x.struct({ capabilities: str })),
  domainDestroy: remote('DOMAIN_DESTROY', 12, domOnly, x.empty),
  domainGetXmlDesc: remote('DOMAIN_GET_XML_DESC', 14, domFlags, x.struct({ xml: str })),
  domainAbortJob: remote('DOMAIN_ABORT_JOB', 164, domOnly, x.empty),
  domainMigrateSetMaxDowntime: remote(
    'DOMAIN_MIGRATE_SET_MAX_DOWNTIME',
    166,
    x.struct({ dom, downtime: x.uhyper, flags: x.uint }),
    x.empty,
  ),
  domainLookupByName: remote('DOMAIN_LOOKUP_BY_NAME', 23, x.struct({ name: str }), domRet),
  domainLookupByUuid: remote('DOMAIN_LOOKUP_BY_UUID', 24, x.struct({ uuid: x.fixedOpaque(16) }), domRet),
  domainReboot: remote('DOMAIN_REBOOT', 27, domFlags, x.empty),
  domainResume: remote('DOMAIN_RESUME', 28, domOnly, x.empty),
  domainSuspend: remote('DOMAIN_SUSPEND', 34, domOnly, x.empty),
  connectGetHostname: remote('CONNECT_GET_HOSTNAME', 59, x.empty, x.struct({ hostname: str })),
  connectSupportsFeature: remote(
    'CONNECT_SUPPORTS_FEATURE',
    60,
    x.struct({ feature: x.int }),
    x.struct({ supported: x.int }),
  ),
  connectGetLibVersion: remote('CONNECT_GET_LIB_VERSION', 157, x.empty, x.struct({ libVer: x.uhyper })),
  domainAttachDeviceFlags: remote('DOMAIN_ATTACH_DEVICE_FLAGS', 160, domXmlFlags, x.empty),
  domainDetachDeviceFlags: remote('DOMAIN_DETACH_DEVICE_FLAGS', 161, domXmlFlags, x.empty),
  domainUpdateDeviceFlags: remote('DOMAIN_UPDATE_DEVICE_FLAGS', 174, domXmlFlags, x.empty),
  domainCreateWithFlags: remote('DOMAIN_CREATE_WITH_FLAGS', 196, domFlags, domRet),
  domainSetVcpusFlags: remote(
    'DOMAIN_SET_VCPUS_FLAGS',
    199,
    x.struct({ dom, nvcpus: x.uint, flags: x.uint }),
    x.empty,
  ),
  domainGetVcpusFlags: remote('DOMAIN_GET_VCPUS_FLAGS', 200, domFlags, x.struct({ num: x.int })),
  domainMigrateSetMaxSpeed: remote(
    'DOMAIN_MIGRATE_SET_MAX_SPEED',
    207,
    x.struct({ dom, bandwidth: x.uhyper, flags: x.uint }),
    x.empty,
  ),
  domainGetState: remote('DOMAIN_GET_STATE', 212, domFlags, x.struct({ state: x.int, reason: x.int })),
  domainUndefineFlags: remote('DOMAIN_UNDEFINE_FLAGS', 231, domFlags, x.empty),
  domainDestroyFlags: remote('DOMAIN_DESTROY_FLAGS', 234, domFlags, x.empty),
  domainReset: remote('DOMAIN_RESET', 245, domFlags, x.empty),
  domainShutdownFlags: remote('DOMAIN_SHUTDOWN_FLAGS', 258, domFlags, x.empty),
  connectListAllDomains: remote(
    'CONNECT_LIST_ALL_DOMAINS',
    273,
    x.struct({ needResults: x.int, flags: x.uint }),
    x.struct({ domains: x.array(dom, 16384), ret: x.uint }),
  ),
  connectDomainEventCallbackRegisterAny: remote(
    'CONNECT_DOMAIN_EVENT_CALLBACK_REGISTER_ANY',
    316,
    x.struct({ eventID: x.int, dom: x.optional(dom) }),
    x.struct({ callbackID: x.int }),
  ),
  connectDomainEventCallbackDeregisterAny: remote(
    'CONNECT_DOMAIN_EVENT_CALLBACK_DEREGISTER_ANY',
    317,
    x.struct({ callbackID: x.int }),
    x.empty,
  ),
  domainGetJobStats: remote(
    'DOMAIN_GET_JOB_STATS',
    298,
    domFlags,
    x.struct({ type: x.int, params: x.array(typedParamCodec, 64) }),
  ),
  domainMigratePerform3Params: remote(
    'DOMAIN_MIGRATE_PERFORM3_PARAMS',
    305,
    x.struct({
      dom,
      dconnuri: optStr,
      params: x.array(typedParamCodec, 64),
      cookieIn: cookie,
      flags: x.uint,
    }),
    x.struct({ cookieOut: cookie }),
  ),
  domainFsFreeze: remote('DOMAIN_FSFREEZE', 335, mountpoints, x.struct({ filesystems: x.int })),
  domainFsThaw: remote('DOMAIN_FSTHAW', 336, mountpoints, x.struct({ filesystems: x.int })),
  connectGetDomainCapabilities: remote(
    'CONNECT_GET_DOMAIN_CAPABILITIES',
    342,
    x.struct({ emulatorbin: optStr, arch: optStr, machine: optStr, virttype: optStr, flags: x.uint }),
    x.struct({ capabilities: str }),
  ),
  connectGetAllDomainStats: remote(
    'CONNECT_GET_ALL_DOMAIN_STATS',
    344,
    x.struct({ doms: x.array(dom, 16384), stats: x.uint, flags: x.uint }),
    x.struct({ retStats: x.array(x.struct({ dom, params: x.array(typedParamCodec) }), 16384) }),
  ),
  domainDefineXmlFlags: remote('DOMAIN_DEFINE_XML_FLAGS', 350, x.struct({ xml: str, flags: x.uint }), domRet),
  domainDetachDeviceAlias: remote(
    'DOMAIN_DETACH_DEVICE_ALIAS',
    392,
    x.struct({ dom, alias: str, flags: x.uint }),
    x.empty,
  ),
  domainMigrateStartPostCopy: remote('DOMAIN_MIGRATE_START_POST_COPY', 364, domFlags, x.empty),
  domainGetGuestInfo: remote(
    'DOMAIN_GET_GUEST_INFO',
    418,
    x.struct({ dom, types: x.uint, flags: x.uint }),
    x.struct({ params: x.array(typedParamCodec, 2048) }),
  ),
  qemuDomainAgentCommand: {
    program: QEMU_PROGRAM,
    procedure: 3,
    name: 'QEMU_PROC_DOMAIN_AGENT_COMMAND',
    args: x.struct({ dom, cmd: str, timeout: x.int, flags: x.uint }),
    ret: x.struct({ result: optStr }),
  },
} as const;

/** Event messages (type MESSAGE, remote program) of the *_CALLBACK_* family: each starts with callbackID. */
export const EVENT_PROC = {
  lifecycle: 318,
  reboot: 319,
  deviceRemoved: 333,
  agentLifecycle: 348,
  deviceAdded: 354,
  deviceRemovalFailed: 367,
} as const;

export const EVENT_MSG = {
  lifecycle: x.struct({ callbackID: x.int, msg: x.struct({ dom, event: x.int, detail: x.int }) }),
  reboot: x.struct({ callbackID: x.int, msg: domOnly }),
  deviceRemoved: x.struct({ callbackID: x.int, msg: x.struct({ dom, devAlias: str }) }),
  agentLifecycle: x.struct({ callbackID: x.int, dom, state: x.int, reason: x.int }),
  deviceAdded: x.struct({ callbackID: x.int, dom, devAlias: str }),
  deviceRemovalFailed: x.struct({ callbackID: x.int, dom, devAlias: str }),
} as const;
