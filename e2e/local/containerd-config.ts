/**
 * containerd 2's config.toml (version 4, the format `containerd config default` of v2.4 prints) for the
 * local node. Only what differs from the defaults is written, and every default path that would land in
 * /run, /var/lib, /etc or /opt is moved under the stack dir (the shim sockets go to a short dir of ours
 * under /run: a unix socket path must stay under 108 bytes):
 * root, state, imports, grpc/ttrpc/debug sockets, runc's state Root, the shim socket dir, CNI conf and bin
 * dirs, CDI spec dirs, the image-verifier bin dir, the opt plugin's dir; NRI is disabled (it would create
 * /var/run/nri). CRI: cgroupfs (SystemdCgroup false), restrict_oom_score_adj (no CAP_SYS_RESOURCE here),
 * netns mounts under the state dir, the sandbox image is our local pause; a container's device nodes belong
 * to its runAsUser/runAsGroup (device_ownership_from_security_context, which KubeVirt's non-root launcher
 * needs wherever a host device node is not world-writable: /dev/net/tun is 0600 on this machine).
 */
import { join } from 'node:path';
import { IMAGES } from './layout.ts';

export interface ContainerdConfigOptions {
  root: string;
  state: string;
  socket: string;
  /** Short dir for shim sockets and runc state (under /run, removed on down). */
  runDir: string;
  cniConfDir: string;
  cniBinDir: string;
  /** The stack's own dir for the opt plugin and image verifiers. */
  varDir: string;
  /** The CDI spec dir (DRA drivers write their claims' specs here). */
  cdiDir: string;
}

const q = (s: string): string => `'${s}'`;

export function containerdConfig(o: ContainerdConfigOptions): string {
  const cri = "plugins.'io.containerd.cri.v1.runtime'";
  return `version = 4
root = ${q(o.root)}
state = ${q(o.state)}
imports = [${q(join(o.varDir, 'conf.d', '*.toml'))}]
oom_score = 0

[debug]
  level = 'info'

[plugins]
  [plugins.'io.containerd.cri.v1.images']
    snapshotter = 'overlayfs'
    [plugins.'io.containerd.cri.v1.images'.pinned_images]
      sandbox = ${q(IMAGES.pause)}

  [${cri}]
    restrict_oom_score_adj = true
    device_ownership_from_security_context = true
    netns_mounts_under_state_dir = true
    cdi_spec_dirs = [${q(o.cdiDir)}]
    enable_unprivileged_ports = false
    enable_unprivileged_icmp = false
    [${cri}.containerd]
      default_runtime_name = 'runc'
      [${cri}.containerd.runtimes.runc]
        runtime_type = 'io.containerd.runc.v2'
        [${cri}.containerd.runtimes.runc.options]
          BinaryName = '/usr/bin/runc'
          Root = ${q(join(o.runDir, 'runc'))}
          SystemdCgroup = false
    [${cri}.cni]
      bin_dirs = [${q(o.cniBinDir)}]
      conf_dir = ${q(o.cniConfDir)}
      max_conf_num = 1

  [plugins.'io.containerd.grpc.v1.cri']
    disable_tcp_service = true
    stream_server_address = '127.0.0.1'
    stream_server_port = '0'

  [plugins.'io.containerd.image-verifier.v1.bindir']
    bin_dir = ${q(join(o.varDir, 'image-verifier'))}

  [plugins.'io.containerd.internal.v1.opt']
    path = ${q(join(o.varDir, 'opt'))}

  [plugins.'io.containerd.nri.v1.nri']
    disable = true
    socket_path = ${q(join(o.runDir, 'nri.sock'))}
    plugin_path = ${q(join(o.varDir, 'nri', 'plugins'))}
    plugin_config_path = ${q(join(o.varDir, 'nri', 'conf.d'))}

  [plugins.'io.containerd.shim.v1.manager']
    socket_dir = ${q(join(o.runDir, 's'))}

  [plugins.'io.containerd.server.v1.debug']
    address = ${q(`${o.socket}.debug`)}

  [plugins.'io.containerd.server.v1.grpc']
    address = ${q(o.socket)}

  [plugins.'io.containerd.server.v1.ttrpc']
    address = ${q(`${o.socket}.ttrpc`)}
`;
}
