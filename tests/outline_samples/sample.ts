namespace NS { export function f() {} }
declare module "foo" { interface X {} }
module M { }
export interface I<T> extends J { m(a: T): void; p: number; }
type Alias = { a(): void };
enum E { A, B }
export default class C<T> extends B implements I<T> {
  private x = 1;
  handler = () => {};
  constructor() { super(); }
  abstract am(): void;
  get g() { return 1; }
}
abstract class D { abstract m(): void; }
export const arrow = async (a: number): Promise<void> => {};
function over(a: string): void;
function over(a: any) {}
declare function df(x: number): void;
export { };
