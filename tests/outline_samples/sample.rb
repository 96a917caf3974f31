#!/usr/bin/env ruby
require "json"

module Outer
  VERSION = "1.0"

  class Base < Object
    attr_reader :x

    def initialize(x)
      @x = x
    end

    def self.build
      new(1)
    end

    class << self
      def factory; end
    end

    private

    def helper?
      items.each do |i|
        def nope; end
      end
    end
  end

  def mixin_method; end
end

class Outer::Deep::Child < Base; end

def top_level(a)
end

included do
  def in_block; end
end
