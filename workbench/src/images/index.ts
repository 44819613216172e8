// Container images made locally (no docker, no registry): docker-archive tars for `ctr images import`.
export {
  DEFAULT_CREATED,
  archiveManifestJson,
  canonicalJson,
  checkReference,
  digestKey,
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
  IMAGE_PATH,
  MERGED_USR_HOOKS,
  SOURCE_DATE_EPOCH,
  debianFolderArgs,
  debianImageFields,
  debianMirrors,
  debianRootfsArgs,
  makeDebianRootfs,
  mmdebstrapHistory,
  readBaseEtc,
} from './debian-rootfs.ts';
export type {
  BaseEtc,
  BaseFile,
  DebianFolderImage,
  DebianImageFields,
  DebianRootfs,
  DebianRootfsPaths,
} from './debian-rootfs.ts';
export { byPath, describeStep, variantLayerEntries } from './layer-steps.ts';
export type { VariantStep } from './layer-steps.ts';
export {
  FLUX_IMAGE_NAMES,
  FLUX_IMAGE_REPOSITORY,
  FLUX_IMAGE_PREFIX,
  FLUX_IN_USR_LINKS,
  FLUX_RUNTIME_PACKAGES,
  MUNGE_RUN_DIR,
  RECIPE_REVISION,
  cachedFluxImageSet,
  cachedFluxImages,
  checkFluxImage,
  ensureFluxImageSet,
  ensureFluxImages,
  ensureFluxImagesBuild,
  fluxBaseRecipe,
  fluxImageRecipe,
  fluxImagesDir,
  mmdebstrapArgs,
  readFluxCoreVersion,
  readFluxImagesBuild,
  recipeKey,
  recipeRepository,
  stderrProgress,
} from './flux-image.ts';
export {
  FLUX_CORE_BUILD_SECONDS,
  FLUX_CORE_PREFIX,
  cachedFluxCore,
  ensureFluxCore,
  fluxCoreDir,
} from './flux-core.ts';
export { relocateTree, replaceSameLength } from './relocate.ts';
export type { Relocated } from './relocate.ts';
export type {
  EnsureFluxImagesOptions,
  FluxImage,
  FluxImageName,
  FluxImageRecipe,
  FluxImageVariant,
  FluxImages,
  FluxImagesBuild,
  MmdebstrapPaths,
} from './flux-image.ts';
export {
  FLUX_LAMMPS_IMAGE,
  FLUX_LAMMPS_PACKAGES,
  FLUX_LAMMPS_REPOSITORY,
  fluxLammpsImageRecipe,
} from './flux-lammps-image.ts';
export type { FluxLammpsImageName } from './flux-lammps-image.ts';
export {
  cachedFluxLammpsImage,
  checkFluxLammpsImage,
  ensureFluxLammpsImage,
  ensureFluxLammpsImageBuild,
} from './flux-lammps-image-build.ts';
export type { Progress } from '../tooling/hack-script.ts';
export {
  APP_DIR,
  DEPS_NPM_ARGS,
  NODE_BINARY_PATH,
  NODE_RUNTIME_PACKAGES,
  NODE_USER,
  OPERATOR_DEV_IMAGE,
  OPERATOR_RECIPE_REVISION,
  appLayerEntries,
  depsKey,
  nodeImageEnv,
  nodeLayerEntries,
  operatorBaseArgs,
  operatorImageHistory,
  operatorImageRecipe,
  runtimeKey,
  writeAppLayer,
  writeDepsLayer,
  writeOperatorArchive,
} from './operator-image.ts';
export type { OperatorImageRecipe, OperatorLayers } from './operator-image.ts';
export {
  OPERATOR_SOURCES,
  ensureNodeBinary,
  ensureOperatorImage,
  nodeHome,
  npmEnv,
  operatorProgress,
  readOperatorRecipe,
  treeDigest,
} from './operator-image-build.ts';
export type { EnsureOperatorImageOptions, OperatorImage } from './operator-image-build.ts';
export {
  COPIER_APPLETS,
  FLUX_VIEW_BUILD_PACKAGES,
  FLUX_VIEW_COPY_COMMAND,
  FLUX_VIEW_INFO,
  FLUX_VIEW_MARKER,
  FLUX_VIEW_MOUNT_PATH,
  FLUX_VIEW_PREFIX,
  FLUX_VIEW_REPOSITORY,
  FLUX_VIEW_REVISION,
  FLUX_VIEW_SOURCE,
  copierLayerEntries,
  fluxViewBuildArgs,
  fluxViewKey,
  fluxViewRecipe,
  fluxViewReference,
} from './flux-view.ts';
export type { FluxViewBuildPaths, FluxViewRecipe } from './flux-view.ts';
export {
  ASSEMBLE_SCRIPT,
  COPY_SCRIPT,
  ZIP_MODULES_SCRIPT,
  cachedFluxViewImage,
  currentFluxViewRecipe,
  ensureFluxViewBuild,
  ensureFluxViewImage,
  fluxViewDir,
  readFluxViewBuild,
  viewProgress,
} from './flux-view-build.ts';
export type { EnsureFluxViewOptions, FluxViewBuild, FluxViewImage } from './flux-view-build.ts';
export { checkFluxView } from './flux-view-check.ts';
export {
  PLAIN_FIXES,
  PLAIN_GROUP,
  PLAIN_IMAGE_REPOSITORY,
  PLAIN_IMAGE_REVISION,
  PLAIN_PACKAGES,
  PLAIN_PASSWD,
  PLAIN_SUITES,
  plainFolderImage,
  plainImageArgs,
  plainImageHistory,
  plainImageKey,
  plainImageRecipe,
} from './plain-image.ts';
export type { PlainImageRecipe, PlainSuite } from './plain-image.ts';
export {
  cachedPlainImages,
  ensurePlainImageBuild,
  ensurePlainImages,
  plainImageDir,
  plainProgress,
  readPlainImageBuild,
} from './plain-image-build.ts';
export type {
  EnsurePlainImagesOptions,
  PlainImage,
  PlainImageBuild,
  PlainImages,
} from './plain-image-build.ts';
export {
  MOVED_LIBRARIES,
  SPACK_SOFTWARE_ROOT,
  SPACK_VIEWS_DIR,
  SPACK_VIEW_LINK,
  SPACK_VIEW_REPOSITORY,
  SPACK_VIEW_REVISION,
  spackViewHash,
  spackViewKey,
  spackViewLayout,
  spackViewRecipe,
  spackViewReference,
} from './spack-view.ts';
export type { MovedLibrary, SpackViewLayout, SpackViewRecipe } from './spack-view.ts';
export {
  ensureSpackViewBuild,
  ensureSpackViewImage,
  readSpackViewBuild,
  spackViewDir,
  spackViewProgress,
} from './spack-view-build.ts';
export type { EnsureSpackViewOptions, SpackViewBuild, SpackViewImage } from './spack-view-build.ts';
export {
  cachedImageSet,
  ensureCachedBuild,
  ensureImageBuild,
  ensureImageSet,
  imageCacheDir,
  imageOf,
  readBuildRecord,
  readImageBuild,
  stepTimer,
} from './cached-build.ts';
export type {
  BuiltImage,
  CachedBuildOptions,
  ImageBuildOptions,
  ImageBuildRecord,
  StepTimer,
} from './cached-build.ts';
export {
  buildDebianFolderImage,
  ensureDebianFolderImage,
  freshWorkDir,
  packFolderImage,
} from './folder-image-build.ts';
export type { FolderImage, FolderImageBuild, PackedImage } from './folder-image-build.ts';
export {
  LAMMPS_EXAMPLES_DIR,
  LAMMPS_OPENMPI_IMAGE,
  LAMMPS_PROGRAM,
  MPICH_IMAGE,
  MPI_FIXES,
  MPI_IMAGE_NAMES,
  MPI_IMAGE_PACKAGES,
  MPI_IMAGE_REVISION,
  NETPIPE_MPICH_PROGRAM,
  mpiFolderImage,
  mpiImageArgs,
  mpiImageHistory,
  mpiImageKey,
  mpiImageRecipe,
} from './mpi-image.ts';
export type { MpiImageName, MpiImageRecipe } from './mpi-image.ts';
export {
  cachedMpiImages,
  checkMpiImage,
  ensureMpiImageBuild,
  ensureMpiImages,
  mpiImageDir,
  mpiProgress,
  readMpiImageBuild,
} from './mpi-image-build.ts';
export type { EnsureMpiImagesOptions, MpiImage, MpiImageBuild, MpiImages } from './mpi-image-build.ts';
export { DEBIAN_IMAGE_FIXES, applyRootfsFixes } from './rootfs-fixes.ts';
export type { RootfsFixes } from './rootfs-fixes.ts';
export {
  LAMMPS_BUILD_SCRIPT,
  LAMMPS_EXAMPLES_KEPT,
  LAMMPS_FIXES,
  LAMMPS_HNS_DIR,
  LAMMPS_IMAGE_PACKAGES,
  LAMMPS_IMAGE_REVISION,
  LAMMPS_REAXFF_IMAGE,
  LAMMPS_REAXFF_PROGRAM,
  examplesFilters,
  lammpsFolderImage,
  lammpsImageArgs,
  lammpsImageHistory,
  lammpsImageKey,
  lammpsImageRecipe,
} from './lammps-image.ts';
export type { LammpsImagePaths, LammpsImageRecipe } from './lammps-image.ts';
export {
  cachedLammpsImage,
  checkLammpsImage,
  currentLammpsImageRecipe,
  ensureLammpsImage,
  ensureLammpsImageBuild,
  lammpsImageDir,
  lammpsProgress,
  readLammpsImageBuild,
} from './lammps-image-build.ts';
export type { EnsureLammpsImageOptions, LammpsImage, LammpsImageBuild } from './lammps-image-build.ts';
