declare function df(x: number): void;
declare namespace N {
  function inner(): void;
  export function ex(): void;
}
declare class DC { m(): void; }
export function ov(a: string): void;
export function ov(a: any) {}
class K { m(a: string): void; m(a: any) {} }
