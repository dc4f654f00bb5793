/** The wire schemas live in `@kassa/contracts/v1` (files.ts); this module reads them from there. */
export {
  DownloadableFileRead,
  FileCreate,
  type FileCreateInput,
  FileCreatePart,
  FilePatch,
  type FilePatchInput,
  FileRead,
  type FileReadWire,
  FileUpload,
  FileUploadCompleted,
  type FileUploadCompletedInput,
  type FileUploadWire,
  OrganizationAvatarFileRead,
  ProductMediaFileRead,
  type ProductMediaWire,
} from "@kassa/contracts/v1";
