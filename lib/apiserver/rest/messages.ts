/** KubeVirt's texts that more than one subresource answers with (kubevirt rest/subresource.go, tag v1.6.2). */
export const VM_NOT_RUNNING = 'VM is not running';
export const VMI_NOT_RUNNING = 'VMI is not running';
export const VMI_GUEST_AGENT = 'VMI does not have guest agent connected';
export const MANUAL_RECOVERY_REQUIRED =
  'VM recovery required: Volume migration failed, leaving some volumes pointing to non-consistent targets; ' +
  'manual intervention is needed to reassign them to their original volumes.';
