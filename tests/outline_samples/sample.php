<?php
namespace App\Models;

use Foo\Bar;

const TOP = 1;

interface HasName { public function name(): string; }

trait Greets {
    public function greet() { return "hi"; }
}

abstract class User extends Model implements HasName {
    use Greets;
    const ROLE = 'user';
    public function __construct(private string $n) {}
    public function name(): string { return $this->n; }
    abstract protected function kind();
}

enum Suit: string {
    case Hearts = 'H';
    public function color(): string { return 'Red'; }
}

function helper($x) {
    function inner() {}
    return fn($y) => $y;
}
?>
<html><?php function in_html() {} ?></html>
