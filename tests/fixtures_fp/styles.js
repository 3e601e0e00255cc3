// A file written in many styles at once: prettier rewrites nearly every line of it.
import {a,b as c} from './mod.js'
const path = require('path')

export function pick(obj, keys, fallback = null) {
  const out = {}
  for (let i = 0; i < keys.length; i++) { if (obj[keys[i]] !== undefined) out[keys[i]] = obj[keys[i]]; else out[keys[i]] = fallback }
  return out
}

export const twice = x => x * 2
const mask = 0XFF & 1E3, half = .5, big = 1_000_000, hex = 0xAbC
let greet = (name, greeting='hello') => `${greeting}, ${ name.trim() }!`

class Queue extends Array {
  #size = 0;
  static create () { return new Queue }
  push (item) { this.#size++; return super.push(item) }
  get size () { return this.#size }
  async drain (fn) {
    while (this.length) { await fn(this.shift()) }
    return (this.#size = 0)
  }
}

function longCall(first, second) {
  return someFunction(first, second, 'a fairly long string literal that pushes the line', { key: 'value', other: [1,2,3] }, (err, result) => { if (err) throw err; return result })
}

function quoting() {
  const s1 = 'it\'s', s2 = "say \"hi\"", s3 = 'tab\there', s4 = "\u0041\x42"
  const obj = { 'plain': 1, 'needs-quote': 2, nested: { deep: [ 'x', "y" ] } }
  return [s1, s2, s3, s4, obj].map(v => typeof v === 'string' ? v.toUpperCase() : v).filter(Boolean)
}

function conditions(a, b, c) {
  if ((a && b) || c) return 1
  const v = (a) ? (b) : (c)
  return !(a instanceof Queue) ? v : (a + b) * c
}

module.exports = { pick, twice, Queue, longCall, quoting, conditions, mask, half, big, hex, greet, path, c }
