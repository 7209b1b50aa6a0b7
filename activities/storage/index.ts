export { createObjectStore, objectStoreConfigFromEnv, type ObjectStoreConfig } from './createObjectStore';
export { createLocalUploadHandler, type UploadHandler } from './localUploadHandler';
export { LocalDiskObjectStore, type LocalDiskObjectStoreOptions } from './localDiskObjectStore';
export { MAX_MEDIA_BYTES, UPLOAD_URL_TTL_SECONDS, type ObjectStat, type ObjectStore, type PresignPutOptions } from './objectStore';
export { S3ObjectStore, type S3ObjectStoreOptions } from './s3ObjectStore';
export { formatMatchesType, isMediaContentType, sniffMedia, SNIFF_BYTES, UPLOAD_FORMATS, type MediaFormat } from './sniffMedia';
export { verifyStoredUpload } from './verifyUpload';
