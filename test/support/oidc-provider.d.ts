// oidc-provider ships no type declarations; the tests use a handful of its members.
declare module 'oidc-provider' {
  const Provider: any;
  export default Provider;
}
