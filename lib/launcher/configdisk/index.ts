/** Configuration ISOs of a domain: the pure planners and the xorrisofs writer. */
export { type SourceFs } from './image.ts';
export { nodeSourceFs, writeIso } from './iso.ts';
export { configDiskImages, diskFiles } from './plan.ts';
