export { FILE_SERVICES, MAX_SIZE } from "./limits.js";
export { registerStorageRoutes } from "./public.js";
export { type FileRow, findFiles, productMedias, replaceProductMedias } from "./repository.js";
export { registerFileRoutes } from "./routes.js";
export { ProductMediaFileRead, type ProductMediaWire } from "./schemas.js";
export { downloadUrl } from "./serve.js";
export type { FilesEnv } from "./service.js";
export { createUrlSigner, type UrlSigner } from "./signing.js";
export { diskStorage, type FileStorage } from "./storage.js";
export { discardAbandonedUploads, startUploadSweeper } from "./sweep.js";
export { fileCommonToWire, productMediaToWire } from "./wire.js";

/** The S3 storage, loaded only when configured (the AWS SDK is large and warns on Node 20). */
export async function loadS3Storage(opts: import("./s3.js").S3Options) {
  return (await import("./s3.js")).s3Storage(opts);
}
export type { S3Options } from "./s3.js";
