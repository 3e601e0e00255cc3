// TypeScript in many styles.
import type {Thing} from './thing'

export interface Options { retries: number, timeout?: number; label: string }

export type Handler = (event:string, payload?:unknown)=>Promise<void>

export function retry<T>(fn: () => Promise<T>, opts: Options = {retries: 3, label: 'op'}): Promise<T> {
  let attempt = 0
  const run = async (): Promise<T> => { try { return await fn() } catch (e) { if (++attempt > opts.retries) throw e; return run() } }
  return run()
}

export class Store<K extends string, V> {
  private readonly items = new Map<K, V>()
  constructor(private name: string, public limit = 10) {}
  get(key: K): V | undefined { return this.items.get(key) }
  set(key: K, value: V): this { if (this.items.size >= this.limit) { throw new Error(`store ${this.name} is full`) } this.items.set(key, value); return this }
  keys = (): K[] => [...this.items.keys()]
}

export function overloaded(a: string): string
export function overloaded(a: number): number
export function overloaded(a: any): any { return a }

export const describe = (t: Thing | null): string => t ? (t as any).name as string : 'none'

enum Color { Red = 'RED', Green = 'GREEN' }

export function colors(): Color[] { return [Color.Red, Color.Green,] }
