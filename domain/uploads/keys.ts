// The two object keys of an upload. The signed upload URL names the first; completion copies the verified bytes
// to the second (activities/uploads.ts), which no URL names, so nothing sent after completion can replace them.

/** Where the signed upload URL writes: the client's bytes before completion. */
export const uploadObjectKey = (workspaceId: string, id: string) => `uploads/${workspaceId}/${id}`;
/** Where a ready upload's verified bytes live. */
export const verifiedUploadKey = (workspaceId: string, id: string) => `media/${workspaceId}/${id}`;
