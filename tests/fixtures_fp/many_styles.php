<?php
// A PHP file written in many layouts at once: phpcbf (PSR-12) rewrites most of its lines.
namespace App\Styles;
use App\Util\Fmt;
class Queue   extends \ArrayObject{
  private int $size=0;
  const LIMIT=10;
    public function push( $item ){ if($this->size>=self::LIMIT){ throw new \RuntimeException("full {$item}"); }
        $this->size++;
      return parent::append($item);}
  public static function build(...$items){ $q=new static();foreach($items as $i){$q->push($i);} return $q; }
  public function money():string{ return Fmt::money( $this->size*100 ); }
  public function pick(array $keys,$fallback=null){
      $out=[];
      foreach($keys as $k){ $out[$k]=$this[$k]??$fallback; }
      return $out;
  }
  function long_call($first,$second){ return some_function($first,$second,'a fairly long string literal that pushes the line',['key'=>'value','other'=>[1,2,3]],function($err,$result){ if($err){ throw $err; } return $result; }); }
  private function describe(): string {
    return match(true) { $this->size===0=>'empty', $this->size<self::LIMIT=>"partial", default=>'full' };
  }
}
function helper( int $a,int $b ) : int { return ($a+$b)*2; }
