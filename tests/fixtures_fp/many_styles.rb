# A Ruby file written in many layouts at once: `rubocop -x` rewrites most of its lines.
require "json"
module Styles
  class  Queue<Array
      include Comparable
    attr_reader :size,:limit
    RATE=0.2
    def initialize(limit=10,*items)
        @limit=limit;@size=0
      items.each{|i| push(i)}
    end
    def push( item )
      raise ArgumentError,"full" if size>=limit
      @size+=1
      super(item)
    end
    def drain(&block)
      while length>0 do
        yield shift
      end
      @size=0
    end
    def to_s
      "queue(#{ size }/#{limit}) #{ map { |x| x.to_s.upcase }.join(',') }"
    end
    def report
      text = <<~TEXT
          size: #{size}
              limit: #{limit}
      TEXT
      text.strip
    end
    def <=>(other)
      size<=>other.size
    end
    def self.build( *args )
      new( 10,*args )
    end
    def pick(keys,fallback=nil)
      keys.each_with_object({}) { |k,h| h[k]=fetch_value(k)||fallback }
    end
    def fetch_value(key) = key.to_s * 2
    def long_call(first,second)
      some_function(first, second, 'a fairly long string literal that pushes the line', { key: 'value', other: [1,2,3] }) { |err, result| raise err if err; result }
    end
    private
    def some_function(*args,**opts)
      [args,opts]
    end
  end
end
