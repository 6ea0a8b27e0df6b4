/** The package has no types of its own: its one function, the Redis Cluster slot (0–16383) of a key, hash tags read. */
declare module 'cluster-key-slot' {
  export default function calculateSlot(key: string | Buffer): number;
}
