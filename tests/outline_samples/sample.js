import x from "y";

/** doc */
export class A extends B {
  static s = 1;
  #priv() {}
  handle = () => {
    function inner() {}
  };
  get v() { return 1; }
}

export default function main() {
  function local() {}
  class Local {}
}

function* gen() {}
const arrow = (a) => a;
let fe = function named() {};
var K = class {
  m() {}
};
module.exports.exp = function () {};
Foo.prototype.bar = function () {};
describe("x", () => {
  function helper() {}
});
(function () {
  function wrapped() {}
})();
const App = () => (
  <div>
    <span>{x}</span>
  </div>
);
