export { createObjectStore, type ObjectStoreConfig } from './create-object-store';
export { createLocalUploadHandler, type UploadHandler } from './local-upload-handler';
export { LocalDiskObjectStore, type LocalDiskObjectStoreOptions } from './local-disk-object-store';
export { MAX_MEDIA_BYTES, UPLOAD_URL_TTL_SECONDS, type ObjectStat, type ObjectStore, type PresignPutOptions } from './object-store';
export { S3ObjectStore, type S3ObjectStoreOptions } from './s3-object-store';
export { formatMatchesType, isMediaContentType, sniffMedia, SNIFF_BYTES, UPLOAD_FORMATS, type MediaFormat } from './sniff-media';
export { verifyStoredUpload } from './verify-upload';
