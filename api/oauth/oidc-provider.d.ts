// oidc-provider ships no type declarations; the few parts api/oauth uses are typed where they are used.
declare module 'oidc-provider' {
  const Provider: any;
  export default Provider;
  export const interactionPolicy: any;
  export const errors: any;
}
