// Container images made locally (no docker, no registry): docker-archive tars for `ctr images import`.
export {
  DEFAULT_CREATED,
  archiveManifestJson,
  canonicalJson,
  checkReference,
  imageConfigJson,
  sha256File,
  sha256Text,
  writeImageArchive,
} from './image-archive.ts';
export type { ImageArchive, ImageArchiveOptions, ImageConfig } from './image-archive.ts';
export { directoryEntries, writeDirectoryLayer } from './directory-layer.ts';
export type { DirectoryLayerOptions, Owner } from './directory-layer.ts';
export { archivePath, writeTar } from './tar-writer.ts';
export type { TarEntry, WriteTarOptions } from './tar-writer.ts';
export { withExclusiveLock } from './lock.ts';
export { readArchiveManifest, readTarMember, unpackImageArchive } from './unpack.ts';
export type { ArchiveManifestEntry } from './unpack.ts';
export {
  BASE_ETC_FILES,
  DEBIAN_MIRRORS,
  DEBIAN_SUITE,
  FLUX_IMAGE_NAMES,
  FLUX_IMAGE_REPOSITORY,
  FLUX_RUNTIME_PACKAGES,
  IMAGE_PATH,
  RECIPE_REVISION,
  SOURCE_DATE_EPOCH,
  cachedFluxImages,
  checkFluxImage,
  describeStep,
  ensureFluxImages,
  fluxImageRecipe,
  fluxImagesDir,
  mmdebstrapArgs,
  readBaseEtc,
  readFluxCoreVersion,
  readFluxImagesBuild,
  recipeKey,
  stderrProgress,
  variantLayerEntries,
} from './flux-image.ts';
export type {
  BaseEtc,
  BaseFile,
  EnsureFluxImagesOptions,
  FluxImage,
  FluxImageName,
  FluxImageRecipe,
  FluxImageVariant,
  FluxImages,
  FluxImagesBuild,
  MmdebstrapPaths,
  Progress,
  VariantStep,
} from './flux-image.ts';
