/**
 * Whether a resource claim request fits the claims it would change (the Deckhouse fork's
 * verifyResourceClaimOptions, deckhouse/3p-kubevirt rest/resourceclaims.go, which follows rest/volumes.go
 * verifyVolumeOption): an add needs a new claim name, and no claim of the same ResourceClaim, or else of the same
 * ResourceClaimTemplate (whichever the existing claim names); a remove needs a claim of that name, and that claim
 * hotpluggable. The first claim that decides it, in order, gives the text, which names the request. The host
 * devices are not looked at: the request names its host device and its claim alike. Pure.
 */
import type { PodResourceClaim, VirtualMachineResourceClaimRequest } from '../../../kubevirt/index.ts';

type AddOptions = NonNullable<VirtualMachineResourceClaimRequest['addResourceClaimOptions']>;

function addRefusal(claims: readonly PodResourceClaim[], add: AddOptions): string | undefined {
  const name = add.name;
  const wanted = add.resourceClaim;
  for (const c of claims) {
    if (c.name === name)
      return `Unable to add ResourceClaim [${name}] because ResourceClaim with that name already exists`;
    if (c.resourceClaimName !== undefined) {
      if (wanted.resourceClaimName === c.resourceClaimName) {
        return `Unable to add ResourceClaimName [${name}] because it already exists`;
      }
    } else if (
      c.resourceClaimTemplateName !== undefined &&
      wanted.resourceClaimTemplateName === c.resourceClaimTemplateName
    ) {
      return `Unable to add ResourceClaimTemplateName [${name}] because it already exists`;
    }
  }
  return undefined;
}

function removeRefusal(claims: readonly PodResourceClaim[], name: string): string | undefined {
  const claim = claims.find((c) => c.name === name);
  if (claim === undefined) return `Unable to remove ResourceClaim [${name}] because it does not exist`;
  return claim.hotpluggable === true
    ? undefined
    : `Unable to remove ResourceClaim [${name}] because it is not hotpluggable`;
}

/** The refusal text, or undefined when the request fits. */
export function verifyResourceClaimRequest(
  claims: readonly PodResourceClaim[] | undefined,
  req: VirtualMachineResourceClaimRequest,
): string | undefined {
  if (req.addResourceClaimOptions !== undefined) return addRefusal(claims ?? [], req.addResourceClaimOptions);
  if (req.removeResourceClaimOptions !== undefined) {
    return removeRefusal(claims ?? [], req.removeResourceClaimOptions.name);
  }
  return 'Must specify either AddResourceClaimOptions or RemoveResourceClaimOptions';
}
